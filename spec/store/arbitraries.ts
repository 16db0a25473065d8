/** fast-check generators of reflector deltas, shared by the store and informer properties. */
import fc from 'fast-check';
import type { WatchEvent } from '../../src/watch/index.js';
import { pod, type TestPod } from './fixtures.js';

export type Op =
  | { kind: 'upsert'; type: 'added' | 'modified'; object: TestPod }
  | { kind: 'delete'; object: TestPod }
  | { kind: 'bookmark'; rv: string }
  | { kind: 'relist'; items: TestPod[]; rv: string };

/** Few names and versions, so that keys collide, versions repeat and relists keep, change and drop objects. */
export function podArb(names: number): fc.Arbitrary<TestPod> {
  return fc
    .record({
      name: fc.integer({ min: 0, max: names - 1 }),
      ns: fc.constantFrom('a', 'b', undefined),
      node: fc.constantFrom('n1', 'n2', undefined),
      rv: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ name, ns, node, rv }) => pod(`p${name}`, String(rv), { namespace: ns, ...(node ? { node } : {}) }));
}

export function opsArb(names: number): fc.Arbitrary<Op[]> {
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('upsert' as const),
        type: fc.constantFrom('added' as const, 'modified' as const),
        object: podArb(names),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), object: podArb(names) }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('bookmark' as const), rv: fc.integer({ min: 1, max: 99 }).map(String) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('relist' as const),
        items: fc.array(podArb(names), { maxLength: names }),
        rv: fc.integer({ min: 1, max: 99 }).map(String),
      }),
    },
  );
  return fc.array(op, { maxLength: 40 });
}

export function toEvents(ops: Op[]): WatchEvent<TestPod>[] {
  return ops.flatMap((op): WatchEvent<TestPod>[] => {
    switch (op.kind) {
      case 'upsert':
        return [{ type: op.type, object: structuredClone(op.object) }];
      case 'delete':
        return [{ type: 'deleted', object: structuredClone(op.object) }];
      case 'bookmark':
        return [{ type: 'bookmark', resourceVersion: op.rv }];
      case 'relist':
        return [
          { type: 'relistStarted' },
          ...op.items.map((object) => ({ type: 'listed' as const, object: structuredClone(object) })),
          { type: 'relistDone', resourceVersion: op.rv },
        ];
    }
  });
}

/** Splits `events` into consecutive batches at the given cut points (taken modulo length + 1), as a reflector's bursts would. */
export function batches<E>(events: readonly E[], cuts: readonly number[]): E[][] {
  const points = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b);
  const result: E[][] = [];
  let start = 0;
  for (const point of [...points, events.length]) {
    result.push(events.slice(start, point));
    start = point;
  }
  return result;
}
