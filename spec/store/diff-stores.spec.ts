import { expect } from 'chai';
import fc from 'fast-check';
import { Store, diffStores, editStore, type StoreChange } from '../../src/store/index.js';
import { storeDataOf } from '../../src/store/store.js';
import { everythingFrozen, pod, type TestPod } from './fixtures.js';

type Edit = { set: true; name: number; rv: number } | { set: false; name: number };

/** Wide key spaces, so that leaves fill, split into branches and empty again. */
const editsArb = (names: number) =>
  fc.array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          set: fc.constant(true as const),
          name: fc.integer({ min: 0, max: names - 1 }),
          rv: fc.integer({ min: 1, max: 5 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ set: fc.constant(false as const), name: fc.integer({ min: 0, max: names - 1 }) }),
      },
    ),
    { maxLength: 300 },
  );

const objectsByName = new Map<string, TestPod>();
/** One frozen object per name and version, so that an unchanged object is the same object. */
function objectFor(name: number, rv: number): TestPod {
  const id = `${name}@${rv}`;
  let object = objectsByName.get(id);
  if (object === undefined) {
    object = pod(`p${name}`, String(rv), { namespace: name % 3 === 0 ? undefined : `ns${name % 2}` });
    objectsByName.set(id, object);
  }
  return object;
}
const keyOf = (object: TestPod) =>
  object.metadata!.namespace ? `${object.metadata!.namespace}/${object.metadata!.name}` : object.metadata!.name!;

/** Applies `edits` in editors of `chunk` edits each; returns every committed snapshot and the Map model of each. */
function run(
  base: Store<TestPod>,
  edits: readonly Edit[],
  chunk: number,
): { stores: Store<TestPod>[]; models: Map<string, TestPod>[] } {
  const stores = [base];
  const models = [new Map(base.entries())];
  for (let start = 0; start < edits.length; start += chunk) {
    const model = new Map(models.at(-1)!);
    const editor = editStore(stores.at(-1)!);
    for (const edit of edits.slice(start, start + chunk)) {
      const object = objectFor(edit.name, edit.set ? edit.rv : 1);
      if (edit.set) {
        editor.set(keyOf(object), object);
        model.set(keyOf(object), object);
      } else {
        expect(editor.delete(keyOf(object))).to.equal(model.get(keyOf(object)));
        model.delete(keyOf(object));
      }
      expect(editor.size).to.equal(model.size);
    }
    stores.push(editor.commit());
    models.push(model);
  }
  return { stores, models };
}

/** Applies diff changes to a copy of `from`, checking each against what `from` and `to` hold. */
function replay(
  from: Map<string, TestPod>,
  to: Map<string, TestPod>,
  changes: readonly StoreChange<TestPod>[],
): Map<string, TestPod> {
  const result = new Map(from);
  const seen = new Set<string>();
  for (const change of changes) {
    expect(seen.has(change.key), `${change.key} appears twice`).to.equal(false);
    seen.add(change.key);
    if (change.type === 'added') {
      expect(from.has(change.key)).to.equal(false);
      result.set(change.key, change.object);
    } else if (change.type === 'updated') {
      expect(change.old).to.equal(from.get(change.key));
      expect(change.object).to.not.equal(change.old);
      result.set(change.key, change.object);
    } else {
      expect(change.object).to.equal(from.get(change.key));
      expect(change.stateUnknown).to.equal(true);
      expect(to.has(change.key)).to.equal(false);
      result.delete(change.key);
    }
  }
  return result;
}

describe('diffStores and editStore', () => {
  it('edit a snapshot as a Map would, leave the base untouched, and freeze what they create', () => {
    fc.assert(
      fc.property(editsArb(400), fc.integer({ min: 1, max: 40 }), (edits, chunk) => {
        const base = Store.empty<TestPod>({ indexers: { byNode: (p) => p.spec?.nodeName } });
        const { stores, models } = run(base, edits, chunk);
        expect(base.size).to.equal(0);
        stores.forEach((store, i) => {
          expect(new Map(store.entries())).to.deep.equal(models[i]);
          expect(store.size).to.equal(models[i]!.size);
          for (const namespace of ['ns0', 'ns1']) {
            expect(store.list({ namespace }).map(keyOf).sort()).to.deep.equal(
              [...models[i]!.keys()].filter((k) => k.startsWith(`${namespace}/`)).sort(),
            );
          }
        });
        expect(everythingFrozen(storeDataOf(stores.at(-1)!))).to.equal(true);
      }),
      { numRuns: 150 },
    );
  });

  it('tell exactly what changed between any two snapshots of one lineage', () => {
    fc.assert(
      fc.property(editsArb(400), fc.integer({ min: 1, max: 40 }), fc.nat(), fc.nat(), (edits, chunk, a, b) => {
        const { stores, models } = run(Store.empty<TestPod>(), edits, chunk);
        const i = a % stores.length;
        const j = b % stores.length;
        const changes = diffStores(stores[i]!, stores[j]!);
        expect(replay(models[i]!, models[j]!, changes)).to.deep.equal(models[j]);
        // Nothing spurious: every change is a real difference.
        const differing = new Set(
          [...models[i]!.keys(), ...models[j]!.keys()].filter((k) => models[i]!.get(k) !== models[j]!.get(k)),
        );
        expect(changes.length).to.equal(differing.size);
      }),
      { numRuns: 200 },
    );
  });

  it('tell exactly what changed between snapshots of unrelated lineages', () => {
    fc.assert(
      fc.property(editsArb(300), editsArb(300), fc.integer({ min: 1, max: 60 }), (first, second, chunk) => {
        const one = run(Store.empty<TestPod>(), first, chunk);
        const other = run(Store.empty<TestPod>(), second, 1 + (chunk % 7));
        const from = one.stores.at(-1)!;
        const to = other.stores.at(-1)!;
        expect(replay(one.models.at(-1)!, other.models.at(-1)!, diffStores(from, to))).to.deep.equal(
          other.models.at(-1),
        );
      }),
      { numRuns: 150 },
    );
  });

  it('finds one change in a store of 20,000 objects without reporting anything else', () => {
    const editor = editStore(Store.empty<TestPod>());
    for (let i = 0; i < 20_000; i++) editor.set(keyOf(objectFor(i, 1)), objectFor(i, 1));
    const before = editor.commit();
    const next = editStore(before);
    next.set(keyOf(objectFor(7, 2)), objectFor(7, 2));
    const after = next.commit();
    expect(diffStores(before, after)).to.deep.equal([
      { type: 'updated', key: 'ns1/p7', old: objectFor(7, 1), object: objectFor(7, 2) },
    ]);
    expect(diffStores(after, after)).to.deep.equal([]);
  });

  it('commit the base snapshot itself when nothing changed, and refuse edits after a commit', () => {
    const base = Store.empty<TestPod>();
    const editor = editStore(base);
    editor.set('ns1/p1', objectFor(1, 1));
    editor.delete('ns1/p1');
    const store = editor.commit();
    expect(store.size).to.equal(0);
    expect(editStore(store).commit()).to.equal(store);
    expect(() => editor.set('ns1/p1', objectFor(1, 1))).to.throw(/already committed/);
  });
});
