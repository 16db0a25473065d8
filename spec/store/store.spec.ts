import { expect } from 'chai';
import { storeDataOf } from '../../src/store/store.js';
import { lastValueFrom, from, toArray } from 'rxjs';
import type { ReflectorDelta, WatchEvent } from '../../src/watch/index.js';
import {
  Store,
  applyWatchBatch,
  applyWatchEvents,
  forEachChange,
  initialStoreState,
  reduceStore,
  type StoreChange,
  type StoreState,
} from '../../src/store/index.js';
import { everythingFrozen, pod, type TestPod } from './fixtures.js';

const indexers = { byNode: (p: TestPod) => p.spec?.nodeName };

function run(events: WatchEvent<TestPod>[], state: StoreState<TestPod> = initialStoreState(Store.empty({ indexers }))) {
  return applyWatchEvents(state, events);
}

function listOf(rv: string, ...pods: TestPod[]): WatchEvent<TestPod>[] {
  return [
    { type: 'relistStarted' },
    ...pods.map((object) => ({ type: 'listed' as const, object })),
    { type: 'relistDone', resourceVersion: rv },
  ];
}

describe('Store', () => {
  it('starts empty, unsynced and frozen', () => {
    const store = Store.empty();
    expect(store.size).to.equal(0);
    expect(store.synced).to.equal(false);
    expect(store.resourceVersion).to.equal('');
    expect(Object.isFrozen(store)).to.equal(true);
    expect([...store]).to.deep.equal([]);
  });

  it('swaps a relist into an empty store in one batch as the same changes as one delta at a time', () => {
    const a = pod('a', '1');
    const b1 = pod('b', '2');
    const b2 = pod('b', '3');
    const c = pod('c', '4');
    const d = pod('d', '5');
    const events: WatchEvent<TestPod>[] = [
      { type: 'relistStarted' },
      { type: 'listed', object: a },
      { type: 'listed', object: b1 },
      { type: 'listed', object: c },
      // Out of protocol, but applied to the listing: a repeated key and a deletion.
      { type: 'listed', object: b2 },
      { type: 'deleted', object: c },
      { type: 'listed', object: d },
      { type: 'relistDone', resourceVersion: '9' },
    ];
    const whole = run(events);
    let state = initialStoreState(Store.empty({ indexers }));
    for (const event of events) state = run([event], state).state;
    expect(whole.changes).to.deep.equal([
      { type: 'added', key: 'default/a', object: a },
      { type: 'added', key: 'default/b', object: b2 },
      { type: 'added', key: 'default/d', object: d },
    ]);
    expect([...whole.state.store.entries()]).to.deep.equal([...state.store.entries()]);
    expect(whole.state.store.byIndex('namespace', 'default').length).to.equal(3);
    expect(whole.problems.map((p) => p.reason)).to.deep.equal(['OutOfOrder']);
  });

  it('gives the changes of a lean relist swap one by one, in order, as its change list has them', () => {
    const pods = Array.from({ length: 50 }, (_, i) => pod(`p${i}`, String(i + 1), { node: `n${i % 3}` }));
    const step = applyWatchBatch(initialStoreState(Store.empty({ indexers })), listOf('60', ...pods));
    const streamed: StoreChange<TestPod>[] = [];
    forEachChange(step, (change) => streamed.push(change));
    expect(streamed).to.deep.equal(
      pods.map((object) => ({ type: 'added', key: `default/${object.metadata!.name}`, object })),
    );
    expect(step.changes).to.deep.equal(streamed);
    expect(step.state.store.byIndex('byNode', 'n1').length).to.equal(17);
    expect(everythingFrozen(step.state.store)).to.equal(true);
  });

  it('keeps a lean swap in its place among the changes of a batch applied without exact cuts', () => {
    const before = pod('x', '1');
    const after = pod('a', '7');
    const listed = pod('a', '2');
    const step = run([
      { type: 'added', object: before },
      { type: 'deleted', object: before },
      ...listOf('5', listed),
      { type: 'modified', object: after },
    ]);
    expect(step.changes.map((c) => `${c.type}:${c.key}`)).to.deep.equal([
      'added:default/x',
      'deleted:default/x',
      'added:default/a',
      'updated:default/a',
    ]);
    const streamed: string[] = [];
    forEachChange(step, (c) => streamed.push(`${c.type}:${c.key}`));
    expect(streamed).to.deep.equal(step.changes.map((c) => `${c.type}:${c.key}`));
    expect(step.state.store.get('default/a')).to.equal(after);
  });

  it('rejects an indexer named after the built-in namespace index', () => {
    expect(() => Store.empty({ indexers: { namespace: () => 'x' } })).to.throw(TypeError, /reserved/);
  });

  it('rejects an indexer that is not a function', () => {
    expect(() => Store.empty({ indexers: { byNode: 'nope' as never } })).to.throw(TypeError, /function/);
  });

  it('throws on an unknown index name instead of answering empty', () => {
    expect(() => Store.empty().byIndex('byNod', 'x')).to.throw(RangeError, /unknown index/);
  });

  it('deep-freezes every object it hands out', () => {
    const { state } = run([{ type: 'added', object: pod('a', '1', { labels: { app: 'web' } }) }]);
    const object = state.store.get('default/a')!;
    expect(Object.isFrozen(object)).to.equal(true);
    expect(Object.isFrozen(object.metadata)).to.equal(true);
    expect(Object.isFrozen(object.metadata!.labels)).to.equal(true);
    expect(() => {
      (object.metadata as { name: string }).name = 'b';
    }).to.throw(TypeError);
  });

  it('deep-freezes Maps and class instances a transform put in an object, and terminates on cycles', () => {
    class Extra {
      items = [{ n: 1 }];
    }
    const object = pod('a', '1') as TestPod & { extra?: unknown; byName?: Map<string, { n: number }>; self?: unknown };
    object.extra = new Extra();
    object.byName = new Map([['x', { n: 2 }]]);
    object.self = object;
    const stored = run([{ type: 'added', object }]).state.store.get('default/a') as typeof object;
    expect(everythingFrozen(stored)).to.equal(true);
    expect(() => stored.byName!.set('y', { n: 3 })).to.throw();
    expect(() => {
      (stored.extra as Extra).items.push({ n: 4 });
    }).to.throw(TypeError);
  });

  it('freezes its own index and trie nodes, whether filled by a first list or by later deltas', () => {
    const pods = Array.from({ length: 80 }, (_, i) => pod(`p${i}`, '1', { node: `n${i % 3}` }));
    const first = run(listOf('1', ...pods));
    expect(everythingFrozen(storeDataOf(first.state.store))).to.equal(true);
    const next = run(
      [
        { type: 'modified', object: pod('p1', '2', { node: 'n9' }) },
        { type: 'added', object: pod('new', '3') },
      ],
      first.state,
    );
    expect(everythingFrozen(storeDataOf(next.state.store))).to.equal(true);
  });

  it('lists by namespace and label selector text', () => {
    const { state } = run(
      listOf(
        '5',
        pod('a', '1', { namespace: 'x', labels: { app: 'web' } }),
        pod('b', '2', { namespace: 'x', labels: { app: 'db' } }),
        pod('c', '3', { namespace: 'y', labels: { app: 'web' } }),
      ),
    );
    const names = (pods: TestPod[]) => pods.map((p) => p.metadata!.name).sort();
    expect(names(state.store.list())).to.deep.equal(['a', 'b', 'c']);
    expect(names(state.store.list({ namespace: 'x' }))).to.deep.equal(['a', 'b']);
    expect(names(state.store.list({ labelSelector: 'app=web' }))).to.deep.equal(['a', 'c']);
    expect(names(state.store.list({ namespace: 'x', labelSelector: 'app in (web)' }))).to.deep.equal(['a']);
    expect(state.store.indexValues('namespace').sort()).to.deep.equal(['x', 'y']);
  });

  it('reports a malformed label selector as an error instead of filtering nothing', () => {
    expect(() => Store.empty().list({ labelSelector: 'app in (' })).to.throw();
  });

  it('keeps custom indexes up to date as objects move between values', () => {
    let { state } = run(listOf('1', pod('a', '1', { node: 'n1' }), pod('b', '1', { node: 'n1' })));
    expect(state.store.byIndex('byNode', 'n1')).to.have.length(2);
    ({ state } = run([{ type: 'modified', object: pod('a', '2', { node: 'n2' }) }], state));
    expect(state.store.byIndex('byNode', 'n1').map((p) => p.metadata!.name)).to.deep.equal(['b']);
    expect(state.store.byIndex('byNode', 'n2').map((p) => p.metadata!.name)).to.deep.equal(['a']);
    ({ state } = run([{ type: 'deleted', object: pod('b', '3', { node: 'n1' }) }], state));
    expect(state.store.byIndex('byNode', 'n1')).to.deep.equal([]);
    expect(state.store.indexValues('byNode')).to.deep.equal(['n2']);
  });

  it('stores an object whose indexer throws and reports IndexerFailed', () => {
    const store = Store.empty<TestPod>({
      indexers: {
        boom: () => {
          throw new Error('kaput');
        },
      },
    });
    const step = applyWatchEvents(initialStoreState(store), [{ type: 'added', object: pod('a', '1') }]);
    expect(step.state.store.get('default/a')).to.not.equal(undefined);
    expect(step.problems.map((p) => p.reason)).to.deep.equal(['IndexerFailed']);
    expect(step.problems[0]!.message).to.match(/kaput/);
    expect(step.state.store.byIndex('boom', 'anything')).to.deep.equal([]);
  });
});

describe('applyWatchEvents', () => {
  it('reports added for a new key and updated for a known one, even when the watch replays added', () => {
    const first = run([{ type: 'added', object: pod('a', '1') }]);
    expect(first.changes.map((c) => c.type)).to.deep.equal(['added']);
    const second = run([{ type: 'added', object: pod('a', '2') }], first.state);
    expect(second.changes).to.have.length(1);
    const change = second.changes[0]!;
    expect(change.type).to.equal('updated');
    if (change.type === 'updated') {
      expect(change.old.metadata!.resourceVersion).to.equal('1');
      expect(change.object.metadata!.resourceVersion).to.equal('2');
    }
  });

  it('reports added for a modified of an unknown key', () => {
    expect(run([{ type: 'modified', object: pod('a', '1') }]).changes.map((c) => c.type)).to.deep.equal(['added']);
  });

  it('reports nothing for a deleted of an unknown key but still advances the resourceVersion', () => {
    const step = run([{ type: 'deleted', object: pod('ghost', '9') }]);
    expect(step.changes).to.deep.equal([]);
    expect(step.state.store.resourceVersion).to.equal('9');
    expect(step.state.store.size).to.equal(0);
  });

  it('reports a watch deletion with its final state and stateUnknown false', () => {
    const { state } = run([{ type: 'added', object: pod('a', '1') }]);
    const last = pod('a', '2');
    const step = run([{ type: 'deleted', object: last }], state);
    expect(step.changes).to.deep.equal([{ type: 'deleted', key: 'default/a', object: last, stateUnknown: false }]);
    expect(step.state.store.has('default/a')).to.equal(false);
  });

  it('moves only the resourceVersion on a bookmark', () => {
    const { state } = run([{ type: 'added', object: pod('a', '1') }]);
    const step = run([{ type: 'bookmark', resourceVersion: '42' }], state);
    expect(step.changes).to.deep.equal([]);
    expect(step.state.store.resourceVersion).to.equal('42');
    expect(step.state.store.get('default/a')).to.equal(state.store.get('default/a'));
  });

  it('keeps the store untouched during a relist and swaps it atomically at relistDone', () => {
    const { state } = run(listOf('1', pod('a', '1'), pod('b', '1')));
    const started = run([{ type: 'relistStarted' }, { type: 'listed', object: pod('a', '2') }], state);
    expect(started.state.store).to.equal(state.store);
    expect(started.changes).to.deep.equal([]);
    const done = run(
      [
        { type: 'listed', object: pod('c', '1') },
        { type: 'relistDone', resourceVersion: '7' },
      ],
      started.state,
    );
    expect([...done.state.store.keys()].sort()).to.deep.equal(['default/a', 'default/c']);
    expect(done.state.store.resourceVersion).to.equal('7');
  });

  it('relists after 410 and emits tombstones carrying the last known object', () => {
    const { state } = run(listOf('1', pod('a', '1'), pod('b', '1')));
    const lastB = state.store.get('default/b');
    const step = run(listOf('9', pod('a', '1')), state);
    expect(step.changes).to.deep.equal([{ type: 'deleted', key: 'default/b', object: lastB, stateUnknown: true }]);
  });

  it('emits nothing for relisted objects whose resourceVersion is unchanged and keeps the old object', () => {
    const { state } = run(listOf('1', pod('a', '1')));
    const step = run(listOf('2', pod('a', '1')), state);
    expect(step.changes).to.deep.equal([]);
    expect(step.state.store.get('default/a')).to.equal(state.store.get('default/a'));
  });

  it('reports updated for relisted objects whose resourceVersion changed and added for new ones', () => {
    const { state } = run(listOf('1', pod('a', '1')));
    const step = run(listOf('3', pod('a', '2'), pod('b', '3')), state);
    expect(step.changes.map((c) => `${c.type} ${c.key}`)).to.deep.equal(['updated default/a', 'added default/b']);
  });

  it('becomes synced at the first relistDone and stays synced', () => {
    const empty = run([{ type: 'relistStarted' }]);
    expect(empty.state.store.synced).to.equal(false);
    const synced = run([{ type: 'relistDone', resourceVersion: '1' }], empty.state);
    expect(synced.state.store.synced).to.equal(true);
    const again = run([{ type: 'relistStarted' }, { type: 'added', object: pod('a', '2') }], synced.state);
    expect(again.state.store.synced).to.equal(true);
  });

  it('restarts the listing when a relist starts again before it is done', () => {
    const { state } = run([{ type: 'relistStarted' }, { type: 'listed', object: pod('stale', '1') }]);
    const step = run(listOf('2', pod('fresh', '2')), state);
    expect([...step.state.store.keys()]).to.deep.equal(['default/fresh']);
  });

  it('reports an object without a name as MissingName and keeps going', () => {
    const step = run([
      { type: 'added', object: { kind: 'Pod', metadata: { namespace: 'x' } } as TestPod },
      { type: 'added', object: pod('a', '1') },
    ]);
    expect(step.problems.map((p) => p.reason)).to.deep.equal(['MissingName']);
    expect(step.state.store.size).to.equal(1);
  });

  it('applies deltas outside the relist protocol and reports them as OutOfOrder', () => {
    const stray = run([{ type: 'listed', object: pod('a', '1') }]);
    expect(stray.state.store.has('default/a')).to.equal(true);
    expect(stray.problems.map((p) => p.reason)).to.deep.equal(['OutOfOrder']);
    const during = run([
      { type: 'relistStarted' },
      { type: 'added', object: pod('b', '1') },
      { type: 'relistDone', resourceVersion: '3' },
    ]);
    expect(during.state.store.has('default/b')).to.equal(true);
    expect(during.problems.map((p) => p.reason)).to.deep.equal(['OutOfOrder']);
    const done = run([{ type: 'relistDone', resourceVersion: '4' }], stray.state);
    expect(done.state.store.has('default/a')).to.equal(true);
    expect(done.state.store.resourceVersion).to.equal('4');
    expect(done.problems.map((p) => p.reason)).to.deep.equal(['OutOfOrder']);
  });

  it("takes a listing's objects as listedPages: a nameless one is reported under its listed event, the rest are listed", () => {
    const nameless = { kind: 'Pod', metadata: { namespace: 'x' } } as TestPod;
    const deltas: ReflectorDelta<TestPod>[] = [
      { type: 'relistStarted' },
      { type: 'listedPages', pages: [[pod('a', '1'), nameless], [pod('b', '2')]] },
      { type: 'relistDone', resourceVersion: '5' },
    ];
    const step = applyWatchBatch(initialStoreState(Store.empty({ indexers })), deltas);
    expect(step.next).to.equal(3);
    expect([...step.state.store.keys()].sort()).to.deep.equal(['default/a', 'default/b']);
    expect(step.problems.map((p) => [p.reason, p.event])).to.deep.equal([
      ['MissingName', { type: 'listed', object: nameless }],
    ]);
    expect(step.changes.map((c) => `${c.type} ${c.key}`)).to.deep.equal(['added default/a', 'added default/b']);
  });

  it('applies listedPages outside a relist whole, each object as an OutOfOrder listed, and ends the exact step there', () => {
    const before = run([{ type: 'added', object: pod('z', '1') }]);
    const deltas: ReflectorDelta<TestPod>[] = [
      { type: 'modified', object: pod('z', '2') },
      { type: 'listedPages', pages: [[pod('a', '3'), pod('b', '4')]] },
      { type: 'modified', object: pod('z', '5') },
    ];
    // The first step stops before the listedPages (it changed a key already), the second takes all of it and stops.
    const first = applyWatchBatch(before.state, deltas);
    expect(first.next).to.equal(1);
    const second = applyWatchBatch(first.state, deltas, first.next);
    expect(second.next).to.equal(2);
    expect(second.problems.map((p) => p.reason)).to.deep.equal(['OutOfOrder', 'OutOfOrder']);
    expect(second.changes.map((c) => `${c.type} ${c.key}`)).to.deep.equal(['added default/a', 'added default/b']);
    const third = applyWatchBatch(second.state, deltas, second.next);
    expect(third.state.store.get('default/z')?.metadata?.resourceVersion).to.equal('5');
  });

  it('splits a full trie node and still updates the entries it moved within the same batch', () => {
    // 32 namespaces fill the namespace index's root leaf; the 33rd splits it, and the same batch then edits a bucket
    // that the split moved as a frozen original.
    const first = run(
      Array.from({ length: 32 }, (_, i) => ({
        type: 'added' as const,
        object: pod('a', '1', { namespace: `ns${i}` }),
      })),
    );
    const step = run(
      [
        { type: 'added', object: pod('a', '2', { namespace: 'ns32' }) },
        { type: 'deleted', object: pod('a', '3', { namespace: 'ns0' }) },
        { type: 'added', object: pod('b', '4', { namespace: 'ns1' }) },
      ],
      first.state,
    );
    expect(step.state.store.size).to.equal(33);
    expect(step.state.store.list({ namespace: 'ns0' })).to.deep.equal([]);
    expect(
      step.state.store
        .list({ namespace: 'ns1' })
        .map((p) => p.metadata!.name)
        .sort(),
    ).to.deep.equal(['a', 'b']);
    expect(step.state.store.list({ namespace: 'ns32' })).to.have.length(1);
    expect(step.state.store.indexValues('namespace')).to.have.length(32);
    expect(first.state.store.size).to.equal(32);
  });

  it('shares every untouched trie node, copying only one path per delta however large the store', () => {
    const nodesOf = (root: unknown): Set<unknown> => {
      const nodes = new Set<unknown>();
      const walk = (node: unknown): void => {
        if (node === null) return;
        nodes.add(node);
        // A branch is an array of child slots; a leaf starts with its first entry's hash.
        if (typeof (node as unknown[])[0] !== 'number') for (const child of node as unknown[]) walk(child);
      };
      walk(root);
      return nodes;
    };
    for (const n of [200, 5000]) {
      const { state } = run(
        listOf('1', ...Array.from({ length: n }, (_, i) => pod(`p${i}`, '1', { node: `n${i % 7}` }))),
      );
      const next = run([{ type: 'modified', object: pod('p7', '2', { node: 'n3' }) }], state).state.store;
      const before = nodesOf(storeDataOf(state.store).objects);
      const copied = [...nodesOf(storeDataOf(next).objects)].filter((node) => !before.has(node));
      // One leaf plus one branch per level: depth is 1 at 200 keys and 2 at 5000 (32-way branches, leaves of ≤ 32).
      expect(copied.length, `nodes copied at ${n} objects`).to.be.at.most(n < 1000 ? 2 : 3);
      expect(copied.length).to.be.at.least(1);
      expect(next.get('default/p7')!.spec!.nodeName).to.equal('n3');
      expect(state.store.get('default/p7')!.spec!.nodeName).to.equal('n0');
    }
  });

  it('never changes a snapshot it already returned', () => {
    const { state } = run(listOf('1', pod('a', '1'), pod('b', '1')));
    const before = JSON.stringify([...state.store.entries()]);
    run(
      [
        { type: 'modified', object: pod('a', '2') },
        { type: 'deleted', object: pod('b', '3') },
      ],
      state,
    );
    expect(JSON.stringify([...state.store.entries()])).to.equal(before);
  });
});

describe('reduceStore', () => {
  it('emits a snapshot with its changes for each event that changed the store', async () => {
    const events: WatchEvent<TestPod>[] = [
      ...listOf('1', pod('a', '1')),
      { type: 'status', status: { state: 'connecting' } },
      { type: 'modified', object: pod('a', '2') },
    ];
    const updates = await lastValueFrom(from(events).pipe(reduceStore<TestPod>({ indexers }), toArray()));
    expect(updates.map((u) => u.changes.map((c) => c.type))).to.deep.equal([['added'], ['updated']]);
    expect(updates.map((u) => u.store.synced)).to.deep.equal([true, true]);
    expect(updates[1]!.store.get('default/a')!.metadata!.resourceVersion).to.equal('2');
  });

  it('emits one snapshot per batch, cut where a key changes twice, each change shown exactly by its snapshot', async () => {
    const batch: WatchEvent<TestPod>[] = [
      { type: 'added', object: pod('a', '1') },
      { type: 'added', object: pod('b', '2') },
      { type: 'modified', object: pod('a', '3') },
    ];
    const updates = await lastValueFrom(from([batch]).pipe(reduceStore<TestPod>(), toArray()));
    expect(updates.map((u) => u.changes.map((c) => `${c.type}:${c.key}`))).to.deep.equal([
      ['added:default/a', 'added:default/b'],
      ['updated:default/a'],
    ]);
    expect(updates[0]!.store.get('default/a')!.metadata!.resourceVersion).to.equal('1');
    expect(updates[0]!.store.resourceVersion).to.equal('2');
    expect(updates[1]!.store.get('default/a')!.metadata!.resourceVersion).to.equal('3');
  });

  it('starts every subscription from an empty store', async () => {
    const updates$ = from<WatchEvent<TestPod>[]>([{ type: 'added', object: pod('a', '1') }]).pipe(
      reduceStore<TestPod>(),
    );
    const first = await lastValueFrom(updates$);
    const second = await lastValueFrom(updates$);
    expect(second.changes.map((c) => c.type)).to.deep.equal(['added']);
    expect(second.store).to.not.equal(first.store);
  });
});
