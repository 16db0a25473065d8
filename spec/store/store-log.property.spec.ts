import { expect } from 'chai';
import fc from 'fast-check';
import { objectKey } from '../../src/objects/index.js';
import { Store, StoreLog, diffStores, editStore, type IndexFailure } from '../../src/store/index.js';
import { everythingFrozen, type TestPod } from './fixtures.js';
import { podArb } from './arbitraries.js';

type Write = { kind: 'set'; object: TestPod } | { kind: 'delete'; name: number };

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: podArb(12).map((object) => ({ kind: 'set' as const, object })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 11 }).map((name) => ({ kind: 'delete' as const, name })) },
);

/** What a snapshot must hold: the model's entries, sorted by key. */
function entriesOf(store: Store<TestPod>): [string, TestPod][] {
  return [...store.entries()].sort(([a], [b]) => a.localeCompare(b));
}

function sorted(model: Map<string, TestPod>): [string, TestPod][] {
  return [...model.entries()].sort(([a], [b]) => a.localeCompare(b));
}

describe('StoreLog, property-tested against a Map', () => {
  it('a snapshot, read after any later writes and folds and in any order, holds the writes made before it, whether folds replay the log or copy the map of the store as it is now', () => {
    fc.assert(
      fc.property(
        fc.array(writeArb, { maxLength: 80 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.boolean()),
        fc.array(fc.nat()),
        fc.boolean(),
        fc.array(fc.boolean()),
        (writes, limit, takeAfter, readOrder, givesMap, readAtOnce) => {
          const model = new Map<string, TestPod>();
          const base = editStore(Store.empty<TestPod>({ indexers: { node: (pod) => pod.spec?.nodeName } })).commit({
            synced: true,
          });
          // With the map, a fold of a log nobody read copies it; reading some snapshots at once makes others replay.
          const log = new StoreLog<TestPod>(base, limit, givesMap ? model : undefined);
          const kept: { snapshot: Store<TestPod>; expected: [string, TestPod][] }[] = [];
          writes.forEach((write, i) => {
            if (write.kind === 'set') {
              const key = objectKey(write.object);
              model.set(key, write.object);
              log.set(key, write.object);
            } else {
              // A key the store may not hold: logged all the same, as the caveat says.
              const key = `p${write.name}`;
              model.delete(key);
              log.delete(key);
              for (const namespace of ['a', 'b']) {
                model.delete(`${namespace}/${key}`);
                log.delete(`${namespace}/${key}`);
              }
            }
            if (takeAfter[i % Math.max(1, takeAfter.length)] !== false) {
              const snapshot = log.snapshot();
              if (readAtOnce[i % Math.max(1, readAtOnce.length)] === true) void snapshot.size;
              kept.push({ snapshot, expected: sorted(model) });
            }
          });
          kept.push({ snapshot: log.snapshot(), expected: sorted(model) });
          const unread = kept.map((_, i) => i);
          for (let k = 0; unread.length > 0; k++) {
            const [at] = unread.splice((readOrder[k % Math.max(1, readOrder.length)] ?? 0) % unread.length, 1);
            const { snapshot, expected } = kept[at!]!;
            expect(snapshot.synced).to.equal(true);
            expect(entriesOf(snapshot), `snapshot ${at} of ${kept.length}`).to.deep.equal(expected);
            expect(snapshot.size).to.equal(expected.length);
            expect(everythingFrozen(snapshot)).to.equal(true);
            // The namespace index and a custom one follow the objects, as an editor would keep them.
            for (const namespace of ['a', 'b']) {
              expect(snapshot.list({ namespace }).length).to.equal(
                expected.filter(([, object]) => object.metadata?.namespace === namespace).length,
              );
            }
            for (const node of ['n1', 'n2']) {
              expect(snapshot.byIndex('node', node).length).to.equal(
                expected.filter(([, object]) => object.spec?.nodeName === node).length,
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('StoreLog', () => {
  it('gives the same snapshot until the next write, and the base store before any', () => {
    const base = editStore(Store.empty<TestPod>()).commit({ synced: true });
    const log = new StoreLog<TestPod>(base);
    expect(log.snapshot()).to.equal(base);
    log.set('a/p1', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'a' } });
    const first = log.snapshot();
    expect(log.snapshot()).to.equal(first);
    log.delete('a/p1');
    expect(log.snapshot()).to.not.equal(first);
    expect(first.get('a/p1')?.metadata?.name).to.equal('p1');
    expect(log.snapshot().size).to.equal(0);
  });

  it('shares structure between snapshots read in order: the next one differs only where the writes went', () => {
    const log = new StoreLog<TestPod>(editStore(Store.empty<TestPod>()).commit({ synced: true }), 4);
    const pods = Array.from(
      { length: 200 },
      (_, i): TestPod => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p${i}`, namespace: 'a' },
      }),
    );
    for (const pod of pods) log.set(objectKey(pod), pod);
    const before = log.snapshot();
    expect(before.size).to.equal(200);
    const changed: TestPod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p7', namespace: 'a', uid: 'x' } };
    log.set('a/p7', changed);
    expect(diffStores(before, log.snapshot())).to.deep.equal([
      { type: 'updated', key: 'a/p7', old: pods[7], object: changed },
    ]);
  });

  it('reports an indexer that throws on a write at once, and leaves the object out of that index only', () => {
    const base = editStore(
      Store.empty<TestPod>({
        indexers: {
          byNode: (pod) => {
            if (pod.metadata?.name === 'bad') throw new Error('no node');
            return pod.spec?.nodeName;
          },
        },
      }),
    ).commit({ synced: true });
    const log = new StoreLog<TestPod>(base);
    const failures: IndexFailure[] = [];
    log.set('a/bad', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad', namespace: 'a' } }, failures);
    log.set(
      'a/good',
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'good', namespace: 'a' }, spec: { nodeName: 'n1' } },
      failures,
    );
    expect(failures.map(({ name, error }) => [name, error.message])).to.deep.equal([['byNode', 'no node']]);
    const snapshot = log.snapshot();
    expect(snapshot.size).to.equal(2);
    expect(snapshot.byIndex('byNode', 'n1').map((pod) => pod.metadata?.name)).to.deep.equal(['good']);
    expect(snapshot.list({ namespace: 'a' }).length).to.equal(2);
  });
});
