import { expect } from 'chai';
import fc from 'fast-check';
import { listObjects } from '../../../src/testing/apiserver/handlers/list.js';
import { builtinResources } from '../../../src/testing/apiserver/registry/resource.js';
import { ObjectStore } from '../../../src/testing/apiserver/storage/store.js';

const configmaps = builtinResources.find((r) => r.plural === 'configmaps')!;
const key = '/configmaps'; // storageKey of core configmaps

type Op = { kind: 'put'; ns: string; name: string; value: number } | { kind: 'remove'; ns: string; name: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    ns: fc.constantFrom('a', 'b'),
    name: fc.constantFrom('x', 'y', 'z', 'w'),
    value: fc.nat(5),
  }),
  fc.record({
    kind: fc.constant('remove' as const),
    ns: fc.constantFrom('a', 'b'),
    name: fc.constantFrom('x', 'y', 'z', 'w'),
  }),
);

function apply(store: ObjectStore, op: Op): void {
  if (op.kind === 'put')
    store.put(key, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: op.name, namespace: op.ns },
      data: { v: String(op.value) },
    });
  else store.remove(key, `${op.ns}/${op.name}`);
}

describe('in-memory API server: store snapshots and pagination (properties)', () => {
  it('reconstructs the exact state at every resourceVersion still in history', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const store = new ObjectStore(1000);
        const model = new Map<number, Map<string, string>>();
        const current = new Map<string, string>();
        model.set(0, new Map());
        for (const op of ops) {
          apply(store, op);
          if (op.kind === 'put') current.set(`${op.ns}/${op.name}`, String(op.value));
          else current.delete(`${op.ns}/${op.name}`);
          model.set(store.resourceVersion, new Map(current));
        }
        for (const [rv, expected] of model) {
          const snapshot = store.snapshot(key, rv)!;
          const keys = [...snapshot.keys('', undefined)];
          expect(snapshot.count('', undefined)).to.equal(keys.length);
          expect(snapshot.count('b/', 'b0')).to.equal(keys.filter((k) => k.startsWith('b/')).length);
          const actual = new Map(keys.map((k) => [k, (snapshot.get(k)!['data'] as { v: string }).v]));
          expect([...actual]).to.deep.equal([...expected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('returns every object exactly once across pages, whatever the page size and concurrent writes', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(opArb, { maxLength: 10 }),
        (ops, limit, during) => {
          const store = new ObjectStore(1000);
          for (const op of ops) apply(store, op);
          const target = { resource: configmaps, version: 'v1', namespace: '' };
          const full = listObjects(0, store, target, new URLSearchParams(), 'object')['items'] as Array<{
            metadata: { namespace: string; name: string };
          }>;
          const seen: string[] = [];
          let token = '';
          let pages = 0;
          do {
            const q = new URLSearchParams({ limit: String(limit), ...(token ? { continue: token } : {}) });
            const page = listObjects(0, store, target, q, 'object');
            const items = page['items'] as Array<{ metadata: { namespace: string; name: string } }>;
            seen.push(...items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`));
            const meta = page.metadata as { continue?: string; remainingItemCount?: number };
            if (meta.continue !== undefined) expect(meta.remainingItemCount).to.equal(full.length - seen.length);
            token = meta.continue ?? '';
            // Writes between pages must not leak into the paginated result.
            if (pages === 0) for (const op of during) apply(store, op);
            pages++;
          } while (token !== '');
          expect(seen).to.deep.equal(full.map((i) => `${i.metadata.namespace}/${i.metadata.name}`));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('forgets events beyond the history size and reports the compaction point', () => {
    const store = new ObjectStore(3);
    for (let i = 0; i < 5; i++) apply(store, { kind: 'put', ns: 'a', name: `n${i}`, value: i });
    expect(store.compacted).to.equal(2);
    expect(store.eventsSince(key, 1)).to.equal(undefined);
    expect(store.eventsSince(key, 2)!.map((e) => e.rv)).to.deep.equal([3, 4, 5]);
  });

  it('hands out frozen objects', () => {
    const store = new ObjectStore(10);
    const stored = store.put(key, { metadata: { name: 'f', namespace: 'a', labels: { x: 'y' } } });
    expect(Object.isFrozen(stored.metadata.labels)).to.equal(true);
  });
});
