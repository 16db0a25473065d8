import { expect } from 'chai';
import { storeDataOf } from '../../src/store/store.js';
import fc from 'fast-check';
import { objectKey } from '../../src/objects/index.js';
import {
  Store,
  applyWatchBatch,
  applyWatchEvents,
  initialStoreState,
  type StoreChange,
  type StoreState,
} from '../../src/store/index.js';
import { everythingFrozen, pod, type TestPod } from './fixtures.js';
import { batches, opsArb, podArb, toEvents, type Op } from './arbitraries.js';
import type { ReflectorDelta, WatchEvent } from '../../src/watch/index.js';

/** The reference model: a plain Map, plus the tombstones a relist must produce. */
function model(ops: Op[]): { objects: Map<string, TestPod>; tombstones: string[] } {
  const objects = new Map<string, TestPod>();
  const tombstones: string[] = [];
  for (const op of ops) {
    if (op.kind === 'upsert') objects.set(objectKey(op.object), op.object);
    if (op.kind === 'delete') objects.delete(objectKey(op.object));
    if (op.kind === 'relist') {
      const listed = new Map(op.items.map((item) => [objectKey(item), item]));
      for (const [key, old] of objects)
        if (!listed.has(key)) tombstones.push(`${key}@${old.metadata!.resourceVersion}`);
      for (const [key, item] of listed) {
        const old = objects.get(key);
        listed.set(
          key,
          old !== undefined && old.metadata!.resourceVersion === item.metadata!.resourceVersion ? old : item,
        );
      }
      objects.clear();
      for (const [key, item] of listed) objects.set(key, item);
    }
  }
  return { objects, tombstones };
}

const comparable = (object: TestPod | undefined) => object && JSON.stringify(object);

function checkRun(ops: Op[], cuts: number[]): void {
  const events = toEvents(ops);
  let state = initialStoreState(Store.empty<TestPod>({ indexers: { byNode: (p) => p.spec?.nodeName } }));
  const replay = new Map<string, TestPod>();
  const tombstones: string[] = [];
  const emitted: { store: Store<TestPod>; json: string }[] = [];
  const replayChange = (change: StoreChange<TestPod>) => {
    if (change.type === 'added') expect(replay.has(change.key), `added ${change.key} twice`).to.equal(false);
    if (change.type === 'updated') expect(replay.get(change.key)).to.equal(change.old);
    if (change.type === 'deleted') {
      expect(replay.has(change.key), `deleted unknown ${change.key}`).to.equal(true);
      if (change.stateUnknown) {
        expect(change.object).to.equal(replay.get(change.key));
        tombstones.push(`${change.key}@${change.object.metadata!.resourceVersion}`);
      }
      replay.delete(change.key);
    } else {
      replay.set(change.key, change.object);
    }
  };
  for (const batch of batches(events, cuts)) {
    const step = applyWatchEvents(state, batch);
    expect(step.problems).to.deep.equal([]);
    step.changes.forEach(replayChange);
    state = step.state;
    expect(everythingFrozen(storeDataOf(state.store)), 'a snapshot is deep-frozen').to.equal(true);
    emitted.push({ store: state.store, json: JSON.stringify([...state.store.entries()]) });
  }
  const expected = model(ops);
  const store = state.store;
  expect(store.size).to.equal(expected.objects.size);
  expect(new Set(store.keys())).to.deep.equal(new Set(expected.objects.keys()));
  for (const [key, object] of expected.objects) expect(comparable(store.get(key)), key).to.equal(comparable(object));
  expect([...replay.keys()].sort()).to.deep.equal([...store.keys()].sort());
  for (const [key, object] of replay) expect(object).to.equal(store.get(key));
  expect(tombstones.sort()).to.deep.equal(expected.tombstones.sort());
  for (const value of ['a', 'b']) {
    const want = [...expected.objects.values()]
      .filter((p) => p.metadata!.namespace === value)
      .map(comparable)
      .sort();
    expect(store.list({ namespace: value }).map(comparable).sort()).to.deep.equal(want);
  }
  for (const value of ['n1', 'n2']) {
    const want = [...expected.objects.values()]
      .filter((p) => p.spec?.nodeName === value)
      .map(comparable)
      .sort();
    expect(store.byIndex('byNode', value).map(comparable).sort()).to.deep.equal(want);
  }
  for (const { store: snapshot, json } of emitted) expect(JSON.stringify([...snapshot.entries()])).to.equal(json);
}

/** Everything observable about a snapshot, as comparable JSON. */
function observable(store: Store<TestPod>): string {
  const sorted = <V>(entries: Iterable<[string, V]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const index = (name: string) =>
    store
      .indexValues(name)
      .sort()
      .map((value) => [value, store.byIndex(name, value).map(objectKey).sort()]);
  return JSON.stringify({
    objects: sorted(store.entries()),
    size: store.size,
    resourceVersion: store.resourceVersion,
    synced: store.synced,
    namespace: index('namespace'),
    byNode: index('byNode'),
  });
}

/**
 * Applies `events` cut into batches at `cuts`, each batch in exact steps (`applyWatchBatch`, checking that every
 * step's snapshot shows each of its changes exactly) or in one step (`applyWatchEvents`); returns the final store
 * and every change, in order.
 */
function applyInBatches(
  events: ReturnType<typeof toEvents>,
  cuts: number[],
  exact: boolean,
): { store: Store<TestPod>; changes: StoreChange<TestPod>[] } {
  let state: StoreState<TestPod> = initialStoreState(
    Store.empty<TestPod>({ indexers: { byNode: (p) => p.spec?.nodeName } }),
  );
  const changes: StoreChange<TestPod>[] = [];
  for (const batch of batches(events, cuts)) {
    if (!exact) {
      const step = applyWatchEvents(state, batch);
      changes.push(...step.changes);
      state = step.state;
      continue;
    }
    for (let from = 0; from < batch.length; ) {
      const step = applyWatchBatch(state, batch, from);
      expect(step.next).to.be.greaterThan(from);
      for (const change of step.changes) {
        if (change.type === 'deleted')
          expect(step.state.store.has(change.key), `deleted ${change.key}`).to.equal(false);
        else expect(step.state.store.get(change.key), `${change.type} ${change.key}`).to.equal(change.object);
      }
      changes.push(...step.changes);
      state = step.state;
      from = step.next;
    }
  }
  return { store: state.store, changes };
}

/**
 * `events` with each run of `listed` events replaced by one `listedPages`, its pages sized by `pageSizes` in turn, as
 * the reflector emits a listing to an informer.
 */
function groupListings(
  events: readonly WatchEvent<TestPod>[],
  pageSizes: readonly number[],
): ReflectorDelta<TestPod>[] {
  const result: ReflectorDelta<TestPod>[] = [];
  let turn = 0;
  for (let i = 0; i < events.length; ) {
    if (events[i]!.type !== 'listed') {
      result.push(events[i]!);
      i += 1;
      continue;
    }
    const pages: TestPod[][] = [];
    while (i < events.length && events[i]!.type === 'listed') {
      const size = pageSizes[turn++ % pageSizes.length]!;
      const page: TestPod[] = [];
      for (; page.length < size && i < events.length; i++) {
        const event = events[i]!;
        if (event.type !== 'listed') break;
        page.push(event.object);
      }
      pages.push(page);
    }
    result.push({ type: 'listedPages', pages });
  }
  return result;
}

const describeChange = (change: StoreChange<TestPod>) =>
  `${change.type} ${change.key}@${change.object.metadata!.resourceVersion}${change.type === 'deleted' && change.stateUnknown ? ' (unknown)' : ''}`;

describe('the store, as a property', () => {
  it('reaches the same store and the same changes however the same deltas are split into batches', () => {
    fc.assert(
      fc.property(
        opsArb(6),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (ops, cutsA, cutsB, exactB) => {
          const events = toEvents(ops);
          const one = applyInBatches(events, [], false);
          const a = applyInBatches(events, cutsA, true);
          const b = applyInBatches(events, cutsB, exactB);
          expect(observable(a.store)).to.equal(observable(one.store));
          expect(observable(b.store)).to.equal(observable(one.store));
          expect(a.changes.map(describeChange)).to.deep.equal(one.changes.map(describeChange));
          expect(b.changes.map(describeChange)).to.deep.equal(one.changes.map(describeChange));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reaches the same store and the same changes when a listing comes as listedPages, however it is paged and batched', () => {
    fc.assert(
      fc.property(
        opsArb(6),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (ops, pageSizes, cuts) => {
          const events = toEvents(ops);
          const one = applyInBatches(events, [], false);
          const grouped = groupListings(events, pageSizes);
          let state: StoreState<TestPod> = initialStoreState(
            Store.empty<TestPod>({ indexers: { byNode: (p) => p.spec?.nodeName } }),
          );
          const changes: StoreChange<TestPod>[] = [];
          for (const batch of batches(grouped, cuts)) {
            for (let from = 0; from < batch.length; ) {
              const step = applyWatchBatch(state, batch, from);
              expect(step.problems).to.deep.equal([]);
              changes.push(...step.changes);
              state = step.state;
              from = step.next;
            }
          }
          expect(observable(state.store)).to.equal(observable(one.store));
          expect(changes.map(describeChange)).to.deep.equal(one.changes.map(describeChange));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('equals a plain Map model after any sequence of deltas and relists, however they are batched', () => {
    fc.assert(fc.property(opsArb(6), fc.array(fc.nat(), { maxLength: 6 }), checkRun), { numRuns: 300 });
  });

  it('stays equal to the model when the trie splits and collapses under many keys', () => {
    fc.assert(fc.property(opsArb(120), fc.array(fc.nat(), { maxLength: 4 }), checkRun), { numRuns: 40 });
  });

  it('builds the trie of a first listing with the shape that inserting its keys one by one gives', () => {
    // Up to 1,500 keys in few namespaces (so leaves split, once and twice) and some cluster-scoped ones; a repeated
    // key sends the listing down the one-by-one path, which must reach the same shape too.
    const item = (ns: fc.Arbitrary<string | undefined>) =>
      fc.record({ name: fc.nat({ max: 3000 }), ns, rv: fc.nat({ max: 3 }) });
    const selector = ({ name, ns }: { name: number; ns: string | undefined }) => `${ns}/${name}`;
    const listing = fc.oneof(
      fc.uniqueArray(item(fc.constantFrom('a', 'b', undefined)), { maxLength: 1500, size: 'max', selector }),
      // Around one leaf's capacity in one namespace: the size at which a leaf becomes a branch.
      fc.uniqueArray(item(fc.constant('a')), { minLength: 30, maxLength: 34, selector }),
    );
    fc.assert(
      fc.property(listing, fc.nat(), fc.boolean(), (items, at, repeat) => {
        const objects = items.map(({ name, ns, rv }) => pod(`p${name}`, String(rv), { namespace: ns }));
        if (repeat && objects.length > 0) objects.push({ ...objects[at % objects.length]! });
        const empty = initialStoreState(Store.empty<TestPod>());
        const listed = applyWatchEvents(empty, [
          { type: 'relistStarted' },
          ...objects.map((object) => ({ type: 'listed' as const, object })),
          { type: 'relistDone', resourceVersion: '1' },
        ]).state.store;
        let state = empty;
        for (const object of objects) state = applyWatchEvents(state, [{ type: 'modified', object }]).state;
        expect(storeDataOf(listed).objects).to.deep.equal(storeDataOf(state.store).objects);
        expect(listed.indexValues('namespace').sort()).to.deep.equal(state.store.indexValues('namespace').sort());
        expect(everythingFrozen(storeDataOf(listed))).to.equal(true);
      }),
      { numRuns: 30 },
    );
  });

  it('files every object under its own namespace even when keys collide across namespaces', () => {
    // `a/p0` is both p0 in namespace a and a cluster-scoped object named a/p0; `p0` is both p0 without a namespace
    // and p0 in the empty namespace. The store may not derive a replaced object's namespace from the key then.
    const irregular = fc
      .record({
        name: fc.constantFrom('p0', 'a/p0', 'p1'),
        ns: fc.constantFrom('a', '', undefined),
        rv: fc.integer({ min: 1, max: 3 }),
      })
      .map(({ name, ns, rv }) => pod(name, String(rv), { namespace: ns }));
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('upsert' as const),
          type: fc.constantFrom('added' as const, 'modified' as const),
          object: irregular,
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), object: irregular }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('relist' as const),
          items: fc.array(irregular, { maxLength: 4 }),
          rv: fc.constant('9'),
        }),
      },
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 6 }), (ops, cuts) => {
        const { store } = applyInBatches(toEvents(ops), cuts, true);
        const objects = [...model(ops).objects.values()];
        const namespaces = new Set(objects.map((p) => p.metadata!.namespace).filter((ns) => typeof ns === 'string'));
        expect(store.indexValues('namespace').sort()).to.deep.equal([...namespaces].sort());
        for (const ns of ['a', '']) {
          const want = objects
            .filter((p) => p.metadata!.namespace === ns)
            .map(comparable)
            .sort();
          expect(store.byIndex('namespace', ns).map(comparable).sort(), `namespace "${ns}"`).to.deep.equal(want);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('emits tombstones for exactly the objects that vanished in a relist', () => {
    fc.assert(
      fc.property(fc.array(podArb(8), { maxLength: 8 }), fc.array(podArb(8), { maxLength: 8 }), (before, after) => {
        checkRun(
          [
            { kind: 'relist', items: before, rv: '1' },
            { kind: 'relist', items: after, rv: '2' },
          ],
          [],
        );
      }),
      { numRuns: 200 },
    );
  });
});
