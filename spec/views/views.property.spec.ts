/**
 * The views against their definitions: after any interleaving of their inputs' deltas (relists with tombstones and
 * batches included), every snapshot a view publishes equals the same view computed from scratch over the input
 * snapshots it reflects.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import fc from 'fast-check';
import { Subject, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { informerFromSource, type Informer, type InformerEvent } from '../../src/informer/index.js';
import type { Store } from '../../src/store/index.js';
import {
  aggregateView,
  filterView,
  joinView,
  mapView,
  ownedView,
  type JoinRow,
  type View,
} from '../../src/views/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import {
  deploymentArb,
  interleave,
  nodeArb,
  ownedPodArb,
  podArb,
  replicaSetArb,
  scriptArb,
  type TestNode,
  type TestPod,
} from './arbitraries.js';

type Row = [key: string, value: unknown];
/** A store as sorted rows, join rows opened up (their `right` as sorted rows, recursively), for deep comparison. */
function rowsOf(store: { entries(): Iterable<[string, unknown]> }): Row[] {
  return [...store.entries()]
    .map(([key, value]): Row => [key, open(value)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
function open(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'right' in value && 'left' in value) {
    const { left, right } = value as { left: unknown; right: { entries(): Iterable<[string, unknown]> } };
    return { left: open(left), right: rowsOf(right) };
  }
  return value;
}

/** Joins from scratch: every left object with the right objects whose keys include its key. */
function joinFromScratch<L extends KubernetesObject, R>(
  lefts: Iterable<[string, L]>,
  rights: Iterable<[string, R]>,
  leftKey: (l: L) => string | undefined,
  rightKeys: (r: R) => string[],
): Map<string, { left: L; right: Map<string, R> }> {
  const rightList = [...rights];
  const rows = new Map<string, { left: L; right: Map<string, R> }>();
  for (const [key, left] of lefts) {
    const joinKey = leftKey(left);
    rows.set(key, {
      left,
      right: new Map(
        joinKey === undefined || joinKey === '' ? [] : rightList.filter(([, r]) => rightKeys(r).includes(joinKey)),
      ),
    });
  }
  return rows;
}

/** A scheduler whose actions run only when the test says so. */
function manualScheduler(): SchedulerLike & { flush(): void } {
  let queue: (() => void)[] = [];
  return {
    now: () => 0,
    schedule(work: (this: SchedulerAction<unknown>, state?: unknown) => void): Subscription {
      let cancelled = false;
      queue.push(() => {
        if (!cancelled) work.call({} as SchedulerAction<unknown>);
      });
      return {
        unsubscribe: () => {
          cancelled = true;
        },
        closed: false,
      } as Subscription;
    },
    flush() {
      const pending = queue;
      queue = [];
      for (const run of pending) run();
    },
  } as SchedulerLike & { flush(): void };
}

interface Inputs {
  readonly sources: Subject<readonly unknown[]>[];
  readonly informers: Informer<KubernetesObject>[];
}
function inputs(count: number): Inputs {
  const sources = Array.from({ length: count }, () => new Subject<readonly unknown[]>());
  return {
    sources,
    informers: sources.map((source) => informerFromSource(source as Subject<readonly WatchEvent<KubernetesObject>[]>)),
  };
}

/**
 * Feeds the scripts to the inputs in the interleaving `order`, and checks the view: empty and unsynced until every
 * input is synced; every snapshot it publishes, at the moment it publishes it, equal to `expected()` over the
 * inputs' current snapshots (with `coalesce`, at each flush); its events a gapless, duplicate-free account of its
 * snapshots; no problem reported.
 */
function check<V extends KubernetesObject>(
  { sources, informers }: Inputs,
  view: View<V>,
  scripts: readonly { readonly batches: readonly (readonly unknown[])[] }[],
  order: readonly number[],
  expected: () => Row[],
  scheduler?: ReturnType<typeof manualScheduler>,
): void {
  const problems: string[] = [];
  view.problems$.subscribe((problem) => problems.push(problem.message));
  let published = 0;
  view.store$.subscribe((snapshot) => {
    published += 1;
    const synced = informers.every((informer) => informer.current().synced);
    if (!snapshot.synced) {
      expect(snapshot.size, 'an unsynced view is empty').to.equal(0);
      return;
    }
    if (scheduler === undefined) expect(synced, 'the view is synced only once every input is').to.equal(true);
    expect(
      rowsOf(snapshot),
      'a published snapshot equals the view from scratch over the inputs it reflects',
    ).to.deep.equal(expected());
  });
  const followed = new Map<string, V>();
  view.events$.subscribe((event: InformerEvent<V>) => {
    if (event.type === 'added') expect(followed.has(event.key), `added ${event.key} twice`).to.equal(false);
    if (event.type === 'updated')
      expect(followed.get(event.key), `gap before updated ${event.key}`).to.equal(event.old);
    if (event.type === 'deleted') {
      expect(followed.has(event.key), `deleted unknown ${event.key}`).to.equal(true);
      followed.delete(event.key);
    } else {
      followed.set(event.key, event.object);
    }
  });
  for (const { input, batch } of interleave(scripts, order)) {
    sources[input]!.next(batch);
    if (scheduler !== undefined && batch.length % 2 === 0) scheduler.flush();
  }
  scheduler?.flush();
  const allSynced = informers.every((informer) => informer.current().synced);
  expect(view.current().synced).to.equal(allSynced);
  if (allSynced) expect(rowsOf(view.current())).to.deep.equal(expected());
  else expect(view.current().size).to.equal(0);
  expect(rowsOf(followed)).to.deep.equal(rowsOf(view.current()));
  expect(problems).to.deep.equal([]);
  expect(published).to.be.greaterThan(0);
}

const nodeName = (pod: TestPod) => pod.spec.nodeName;
const orderArb = fc.array(fc.nat(), { minLength: 1, maxLength: 40 });
const runs = { numRuns: 150 };

describe('views, property-tested against their definitions', () => {
  it('a join of Pods to their Node equals the join from scratch after any interleaving', () => {
    fc.assert(
      fc.property(scriptArb(nodeArb, 4), scriptArb(podArb, 8), orderArb, (nodes, pods, order) => {
        const input = inputs(2);
        const [nodeInformer, podInformer] = input.informers as unknown as [Informer<TestNode>, Informer<TestPod>];
        const view = joinView(nodeInformer, podInformer, { leftKey: (node) => node.metadata.name, rightKey: nodeName });
        check(input, view, [nodes, pods], order, () =>
          rowsOf(
            joinFromScratch(
              nodeInformer.current().entries(),
              podInformer.current().entries(),
              (node) => node.metadata.name,
              (pod) => (pod.spec.nodeName ? [pod.spec.nodeName] : []),
            ),
          ),
        );
      }),
      runs,
    );
  });

  it('a join on user keys with several keys per right object equals the join from scratch', () => {
    // Left: Nodes keyed by their zone label; right: Pods keyed by their app label and their tier label.
    fc.assert(
      fc.property(scriptArb(nodeArb, 4), scriptArb(podArb, 8), orderArb, (nodes, pods, order) => {
        const input = inputs(2);
        const [nodeInformer, podInformer] = input.informers as unknown as [Informer<TestNode>, Informer<TestPod>];
        const rightKeys = (pod: TestPod) =>
          [
            ...new Set([
              pod.metadata.labels?.app === 'web' ? 'z1' : 'z2',
              pod.metadata.labels?.tier === 'front' ? 'z1' : undefined,
            ]),
          ].filter((key): key is string => key !== undefined);
        const view = joinView(nodeInformer, podInformer, {
          leftKey: (node) => node.metadata.labels?.zone,
          rightKey: rightKeys,
        });
        check(input, view, [nodes, pods], order, () =>
          rowsOf(
            joinFromScratch(
              nodeInformer.current().entries(),
              podInformer.current().entries(),
              (node) => node.metadata.labels?.zone,
              rightKeys,
            ),
          ),
        );
      }),
      runs,
    );
  });

  it('an old snapshot of a join, read after any later changes and in any order, still shows its own groups', () => {
    // Groups are built when first read: keep every snapshot unread (some read at once), then read them all in a
    // random order. Two join keys and three Pod scripts in a row, so that groups see enough writes to fold their logs.
    fc.assert(
      fc.property(
        scriptArb(nodeArb, 4),
        fc.array(scriptArb(podArb, 8), { minLength: 1, maxLength: 3 }),
        orderArb,
        fc.array(fc.nat()),
        fc.array(fc.boolean()),
        (nodes, podScripts, order, readOrder, readAtOnce) => {
          const input = inputs(2);
          const [nodeInformer, podInformer] = input.informers as unknown as [Informer<TestNode>, Informer<TestPod>];
          const zone = (pod: TestPod) => (pod.metadata.labels?.app === 'web' ? ['z1'] : ['z2']);
          const view = joinView(nodeInformer, podInformer, {
            leftKey: (node) => node.metadata.labels?.zone,
            rightKey: zone,
          });
          const kept: { snapshot: Store<JoinRow<TestNode, TestPod>>; expected: Row[] }[] = [];
          view.store$.subscribe((snapshot) => {
            const expected = rowsOf(
              joinFromScratch(
                nodeInformer.current().entries(),
                podInformer.current().entries(),
                (node) => node.metadata.labels?.zone,
                zone,
              ),
            );
            if (readAtOnce[kept.length % Math.max(1, readAtOnce.length)] === true) {
              expect(rowsOf(snapshot)).to.deep.equal(expected);
            }
            kept.push({ snapshot, expected });
          });
          const pods = { batches: podScripts.flatMap((script) => script.batches) };
          for (const { input: i, batch } of interleave([nodes, pods], order)) input.sources[i]!.next(batch);
          const unread = kept.map((_, i) => i);
          for (let k = 0; unread.length > 0; k++) {
            const [at] = unread.splice((readOrder[k % Math.max(1, readOrder.length)] ?? 0) % unread.length, 1);
            const { snapshot, expected } = kept[at!]!;
            expect(rowsOf(snapshot), `snapshot ${at} of ${kept.length}`).to.deep.equal(expected);
          }
        },
      ),
      runs,
    );
  });

  it('Deployments to ReplicaSets to Pods through owner references equals the tree from scratch', () => {
    fc.assert(
      fc.property(
        scriptArb(deploymentArb, 3),
        scriptArb(replicaSetArb, 4),
        scriptArb(ownedPodArb, 6),
        orderArb,
        (deployments, replicaSets, pods, order) => {
          const input = inputs(3);
          const [deploymentInformer, replicaSetInformer, podInformer] = input.informers as unknown as [
            Informer<TestPod>,
            Informer<TestPod>,
            Informer<TestPod>,
          ];
          const view = ownedView(deploymentInformer, ownedView(replicaSetInformer, podInformer));
          const controllerUids = (object: KubernetesObject) =>
            ((object.metadata?.ownerReferences ?? []) as { uid: string; controller?: boolean }[])
              .filter((reference) => reference.controller === true)
              .map((reference) => reference.uid);
          check(input, view, [deployments, replicaSets, pods], order, () => {
            const replicaSetRows = joinFromScratch(
              replicaSetInformer.current().entries(),
              podInformer.current().entries(),
              (rs) => rs.metadata.uid,
              controllerUids,
            );
            const rowsWithOwners = [...replicaSetRows].map(
              ([key, row]): [string, { left: TestPod; right: Map<string, TestPod>; metadata: TestPod['metadata'] }] => [
                key,
                { ...row, metadata: row.left.metadata },
              ],
            );
            return rowsOf(
              joinFromScratch(
                deploymentInformer.current().entries(),
                rowsWithOwners,
                (d) => d.metadata.uid,
                (row) => controllerUids(row),
              ),
            );
          });
        },
      ),
      runs,
    );
  });

  it('a filter and a projection equal the filter and projection from scratch', () => {
    fc.assert(
      fc.property(scriptArb(podArb, 8), orderArb, (pods, order) => {
        const running = (pod: TestPod) => pod.status.phase === 'Running';
        const project = (pod: TestPod) =>
          pod.spec.nodeName ? { metadata: pod.metadata, node: pod.spec.nodeName } : undefined;
        for (const kind of ['filter', 'map'] as const) {
          const input = inputs(1);
          const podInformer = input.informers[0] as unknown as Informer<TestPod>;
          const view: View<KubernetesObject> =
            kind === 'filter'
              ? (filterView(podInformer, running) as unknown as View<KubernetesObject>)
              : (mapView(podInformer, project, {
                  equals: (a, b) => a.node === b.node && a.metadata === b.metadata,
                }) as unknown as View<KubernetesObject>);
          check(input, view, [pods], order, () => {
            const entries = [...podInformer.current().entries()];
            const expected =
              kind === 'filter'
                ? entries.filter(([, pod]) => running(pod))
                : entries.flatMap(([key, pod]): [string, unknown][] => {
                    const row = project(pod);
                    return row === undefined ? [] : [[key, row]];
                  });
            return rowsOf(new Map(expected));
          });
        }
      }),
      runs,
    );
  });

  it('counts and sums per phase per namespace equal the counts and sums from scratch', () => {
    fc.assert(
      fc.property(scriptArb(podArb, 8), orderArb, (pods, order) => {
        const input = inputs(1);
        const podInformer = input.informers[0] as unknown as Informer<TestPod>;
        const groupBy = (pod: TestPod) => `${pod.metadata.namespace}/${pod.status.phase}`;
        const view = aggregateView(podInformer, { groupBy, sums: { restarts: (pod) => pod.status.restarts } });
        check(input, view, [pods], order, () => {
          const groups = new Map<string, { count: number; restarts: number }>();
          for (const pod of podInformer.current().values()) {
            const group = groups.get(groupBy(pod)) ?? { count: 0, restarts: 0 };
            groups.set(groupBy(pod), { count: group.count + 1, restarts: group.restarts + pod.status.restarts });
          }
          return rowsOf(
            new Map(
              [...groups].map(([key, { count, restarts }]) => {
                const [namespace, name] = key.split('/') as [string, string];
                return [key, { metadata: { namespace, name }, count, sums: { restarts } }];
              }),
            ),
          );
        });
      }),
      runs,
    );
  });

  it("with coalesce, every snapshot equals the join from scratch over every input's latest snapshot at the flush", () => {
    fc.assert(
      fc.property(scriptArb(nodeArb, 4), scriptArb(podArb, 8), orderArb, (nodes, pods, order) => {
        const input = inputs(2);
        const [nodeInformer, podInformer] = input.informers as unknown as [Informer<TestNode>, Informer<TestPod>];
        const scheduler = manualScheduler();
        const view = joinView(nodeInformer, podInformer, {
          leftKey: (node) => node.metadata.name,
          rightKey: nodeName,
          coalesce: scheduler,
        });
        check(
          input,
          view,
          [nodes, pods],
          order,
          () =>
            rowsOf(
              joinFromScratch(
                nodeInformer.current().entries(),
                podInformer.current().entries(),
                (node) => node.metadata.name,
                (pod) => (pod.spec.nodeName ? [pod.spec.nodeName] : []),
              ),
            ),
          scheduler,
        );
      }),
      runs,
    );
  });
});
