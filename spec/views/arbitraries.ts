/** fast-check generators for the view properties: objects of several kinds, their deltas, batches and interleavings. */
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import fc from 'fast-check';
import type { WatchEvent } from '../../src/watch/index.js';

export type Op<T> =
  | { kind: 'upsert'; type: 'added' | 'modified'; object: T }
  | { kind: 'delete'; object: T }
  | { kind: 'bookmark'; rv: string }
  | { kind: 'relist'; items: T[]; rv: string };

/** Deltas of one informer: upserts, deletes, bookmarks and relists (whose missing objects become tombstones). */
export function opsArb<T>(object: fc.Arbitrary<T>, maxItems: number): fc.Arbitrary<Op<T>[]> {
  return fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('upsert' as const),
          type: fc.constantFrom('added' as const, 'modified' as const),
          object,
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), object }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('bookmark' as const),
          rv: fc.integer({ min: 1, max: 99 }).map(String),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('relist' as const),
          items: fc.array(object, { maxLength: maxItems }),
          rv: fc.integer({ min: 1, max: 99 }).map(String),
        }),
      },
    ),
    { maxLength: 30 },
  );
}

/** The watch events of `ops`, starting with a first list of `initial` so that the informer syncs at once. */
export function toEvents<T extends KubernetesObject>(
  ops: readonly Op<T>[],
  initial: readonly T[] | undefined,
): WatchEvent<T>[] {
  const start: WatchEvent<T>[] =
    initial === undefined
      ? []
      : [
          { type: 'relistStarted' },
          ...initial.map((object) => ({ type: 'listed' as const, object: structuredClone(object) })),
          { type: 'relistDone', resourceVersion: '1' },
        ];
  return [
    ...start,
    ...ops.flatMap((op): WatchEvent<T>[] => {
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
    }),
  ];
}

/** Cuts `events` into consecutive batches at `cuts` (modulo length + 1), as a reflector's chunks would. */
export function batches<E>(events: readonly E[], cuts: readonly number[]): E[][] {
  const points = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b);
  const result: E[][] = [];
  let start = 0;
  for (const point of [...points, events.length]) {
    if (point > start) result.push(events.slice(start, point));
    start = point;
  }
  return result;
}

/** One input's script: its deltas cut into batches. */
export interface Script<T extends KubernetesObject> {
  readonly batches: WatchEvent<T>[][];
}

/** A script for one input: a first list (sometimes withheld, so the input syncs late), then deltas, cut. */
export function scriptArb<T extends KubernetesObject>(
  object: fc.Arbitrary<T>,
  maxItems: number,
): fc.Arbitrary<Script<T>> {
  return fc
    .record({
      initial: fc.option(fc.array(object, { maxLength: maxItems }), { freq: 6, nil: undefined }),
      ops: opsArb(object, maxItems),
      cuts: fc.array(fc.nat(), { maxLength: 12 }),
    })
    .map(({ initial, ops, cuts }) => ({ batches: batches(toEvents(ops, initial), cuts) }));
}

/** Merges the scripts' batches into one feed, each script's batches in order, choosing the input by `order`. */
export function interleave<E>(
  scripts: readonly { readonly batches: readonly E[] }[],
  order: readonly number[],
): { input: number; batch: E }[] {
  const next = scripts.map(() => 0);
  const feed: { input: number; batch: E }[] = [];
  const left = () => scripts.some((script, i) => next[i]! < script.batches.length);
  for (let k = 0; left(); k++) {
    let input = (order[k % Math.max(1, order.length)] ?? 0) % scripts.length;
    while (next[input]! >= scripts[input]!.batches.length) input = (input + 1) % scripts.length;
    feed.push({ input, batch: scripts[input]!.batches[next[input]!]! });
    next[input]! += 1;
  }
  return feed;
}

const ns = fc.constantFrom('a', 'b');
const rv = fc.integer({ min: 1, max: 3 }).map(String);

export interface TestNode extends KubernetesObject {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
}
export interface TestPod extends KubernetesObject {
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: V1OwnerReference[];
  };
  spec: { nodeName?: string };
  status: { phase: string; restarts: number };
}

export const nodeArb: fc.Arbitrary<TestNode> = fc
  .record({ name: fc.integer({ min: 0, max: 3 }), rv, zone: fc.constantFrom('z1', 'z2') })
  .map(({ name, rv: version, zone }) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `n${name}`, resourceVersion: version, labels: { zone } },
  }));

export const podArb: fc.Arbitrary<TestPod> = fc
  .record({
    name: fc.integer({ min: 0, max: 7 }),
    namespace: ns,
    rv,
    node: fc.constantFrom('n0', 'n1', 'n2', 'n3', 'n9', '', undefined),
    phase: fc.constantFrom('Running', 'Pending'),
    restarts: fc.integer({ min: 0, max: 3 }),
    app: fc.constantFrom('web', 'db'),
    tier: fc.constantFrom('front', 'back', undefined),
  })
  .map(({ name, namespace, rv: version, node, phase, restarts, app, tier }) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `p${name}`,
      namespace,
      resourceVersion: version,
      labels: { app, ...(tier === undefined ? {} : { tier }) },
    },
    spec: node === undefined ? {} : { nodeName: node },
    status: { phase, restarts },
  }));

/** An owner or dependent of a generation: recreating one under its name gives it a new uid. */
function ownedArb(
  kind: string,
  prefix: string,
  names: number,
  ownerKind: string,
  ownerPrefix: string,
  owners: number,
): fc.Arbitrary<TestPod> {
  return fc
    .record({
      name: fc.integer({ min: 0, max: names - 1 }),
      generation: fc.integer({ min: 0, max: 1 }),
      rv,
      owner: fc.option(
        fc.record({
          name: fc.integer({ min: 0, max: owners - 1 }),
          generation: fc.integer({ min: 0, max: 1 }),
          controller: fc.boolean(),
        }),
        { nil: undefined },
      ),
    })
    .map(({ name, generation, rv: version, owner }) => ({
      apiVersion: 'apps/v1',
      kind,
      metadata: {
        name: `${prefix}${name}`,
        namespace: 'a',
        resourceVersion: version,
        uid: `${prefix}${name}-${generation}`,
        ...(owner === undefined
          ? {}
          : {
              ownerReferences: [
                {
                  apiVersion: 'apps/v1',
                  kind: ownerKind,
                  name: `${ownerPrefix}${owner.name}`,
                  uid: `${ownerPrefix}${owner.name}-${owner.generation}`,
                  controller: owner.controller,
                },
              ],
            }),
      },
      spec: {},
      status: { phase: 'Running', restarts: 0 },
    }));
}

export const deploymentArb = ownedArb('Deployment', 'd', 3, 'None', 'x', 1).map(
  (object) => ({ ...object, metadata: { ...object.metadata, ownerReferences: undefined } }) as TestPod,
);
export const replicaSetArb = ownedArb('ReplicaSet', 'r', 4, 'Deployment', 'd', 3);
export const ownedPodArb = ownedArb('Pod', 'p', 6, 'ReplicaSet', 'r', 4);
