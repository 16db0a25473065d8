/**
 * Cost per Pod change of keeping a Pods-by-Node join view (issue 29), against three things measured in the same
 * run: the informer alone, the informer with a hand-written Map-based incremental join (the floor: mutable Maps
 * updated from `events$`, no snapshots), and the informer with the join recomputed from scratch on every snapshot.
 *
 * 100,000 realistic Pods (~1.8 KB of JSON each) across 1,000 Nodes, then a stream of Pod changes: 80% in-place
 * updates (status, labels), 10% deletions, 10% creations on a random Node. Objects are parsed and deep-frozen
 * before timing, as listWatch hands them to the informer (`freezeJsonTree`), so that the informer is measured and
 * not the decoder. Two deliveries: one change per informer step (one snapshot per change, the view's worst case),
 * and one step per 64 KiB network chunk (35 changes), as the informer applies a watch stream.
 *
 * Targets: the view within 1.5× the floor, and at least 100× faster than recomputing.
 * Run: `npm run bench -- views` (or `node --expose-gc --import tsx bench/views/join.ts`); writes
 * `bench/results/views.md`.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Subject, type Subscription } from 'rxjs';
import { informerFromSource, type Informer } from '../../src/informer/index.js';
import { freezeJsonTree } from '../../src/objects/index.js';
import type { Store } from '../../src/store/index.js';
import { joinView } from '../../src/views/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { realisticPod, type BenchObject } from '../store/objects.js';

const PODS = 100_000;
const NODES = 1_000;
const CHANGES = 20_000;
/** Recomputing costs milliseconds per snapshot: fewer changes, the same per-event figure. */
const RECOMPUTE_CHANGES = 140;
const CHUNK = 35;
/** Seven rounds: the per-chunk figure moves with GC timing by more than its margin to the target over five. */
const ROUNDS = 7;
const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A deterministic generator, so every variant and every run sees the same stream. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const nodeName = (pod: BenchObject) => pod.spec?.nodeName;

function podOn(i: number, rv: number, node: number, name?: string): BenchObject {
  const pod = realisticPod(i, rv);
  pod.spec!.nodeName = `node-${node}`;
  if (name !== undefined) pod.metadata!.name = name;
  return freezeJsonTree(JSON.parse(JSON.stringify(pod)) as BenchObject);
}

function nodeObject(i: number): KubernetesObject {
  return freezeJsonTree({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `node-${i}`,
      uid: `node-uid-${i}`,
      resourceVersion: '1',
      labels: { 'kubernetes.io/hostname': `node-${i}`, zone: `z${i % 3}` },
    },
  });
}

/** The first lists, and a stream of changes that only ever deletes live Pods and creates new ones. */
function workload(
  changes: number,
  seed: number,
): { nodes: KubernetesObject[]; pods: BenchObject[]; stream: WatchEvent<BenchObject>[] } {
  const next = random(seed);
  const nodes = Array.from({ length: NODES }, (_, i) => nodeObject(i));
  const pods = Array.from({ length: PODS }, (_, i) => podOn(i, i + 1, i % NODES));
  const live = pods.map((pod, i) => ({ pod, i }));
  let rv = PODS + 1;
  let created = 0;
  const stream: WatchEvent<BenchObject>[] = [];
  for (let k = 0; k < changes; k++) {
    const roll = next();
    rv += 1;
    if (roll < 0.8) {
      const slot = Math.floor(next() * live.length);
      const { pod, i } = live[slot]!;
      const updated = podOn(i, rv, Number(nodeName(pod)!.slice(5)), pod.metadata!.name);
      live[slot] = { pod: updated, i };
      stream.push({ type: 'modified', object: updated });
    } else if (roll < 0.9) {
      const slot = Math.floor(next() * live.length);
      const { pod } = live[slot]!;
      live[slot] = live[live.length - 1]!;
      live.pop();
      stream.push({ type: 'deleted', object: pod });
    } else {
      const i = PODS + created;
      created += 1;
      const pod = podOn(i, rv, Math.floor(next() * NODES), `new-${i}`);
      live.push({ pod, i });
      stream.push({ type: 'added', object: pod });
    }
  }
  return { nodes, pods, stream };
}

type Variant = 'informer' | 'view' | 'floor' | 'recompute';
const variants: readonly Variant[] = ['informer', 'view', 'floor', 'recompute'];

interface Running {
  readonly pods: Subject<readonly WatchEvent<BenchObject>[]>;
  readonly stop: () => void;
  /** Something the variant computed, read after the timed run so that nothing is optimised away. */
  readonly check: () => number;
}

/** Two informers, listed and synced; the variant's consumer attached. Not timed. */
function start(variant: Variant, nodes: readonly KubernetesObject[], pods: readonly BenchObject[]): Running {
  const nodeSource = new Subject<readonly WatchEvent<KubernetesObject>[]>();
  const podSource = new Subject<readonly WatchEvent<BenchObject>[]>();
  const nodeInformer = informerFromSource(nodeSource);
  const podInformer = informerFromSource(podSource);
  const subscriptions: Subscription[] = [nodeInformer.store$.subscribe(), podInformer.store$.subscribe()];
  let check = () => podInformer.current().size;
  if (variant === 'view') {
    const view = joinView(nodeInformer, podInformer, { leftKey: (node) => node.metadata?.name, rightKey: nodeName });
    subscriptions.push(view.store$.subscribe());
    check = () => view.current().get('node-7')!.right.size;
  } else if (variant === 'floor') {
    const floor = handWrittenJoin(nodeInformer, podInformer);
    subscriptions.push(floor.subscription);
    check = () => floor.byNode.get('node-7')!.size;
  } else if (variant === 'recompute') {
    let latest = new Map<string, BenchObject[]>();
    subscriptions.push(
      podInformer.store$.subscribe((snapshot) => {
        latest = joinFromScratch(nodeInformer.current(), snapshot);
      }),
    );
    check = () => latest.get('node-7')!.length;
  }
  nodeSource.next([
    { type: 'relistStarted' },
    ...nodes.map((object) => ({ type: 'listed' as const, object })),
    { type: 'relistDone', resourceVersion: '1' },
  ]);
  podSource.next([
    { type: 'relistStarted' },
    ...pods.map((object) => ({ type: 'listed' as const, object })),
    { type: 'relistDone', resourceVersion: String(PODS) },
  ]);
  return { pods: podSource, stop: () => subscriptions.forEach((s) => s.unsubscribe()), check };
}

/**
 * The floor: what a careful hand-written controller keeps, Node name → (Pod key → Pod) in mutable Maps, updated
 * from the informer's events; no snapshot, nothing frozen, nothing published.
 */
function handWrittenJoin(nodes: Informer<KubernetesObject>, pods: Informer<BenchObject>) {
  const byNode = new Map<string, Map<string, BenchObject>>();
  const nodeNames = new Set<string>();
  const remove = (pod: BenchObject, key: string) => {
    const node = nodeName(pod);
    if (node !== undefined) byNode.get(node)?.delete(key);
  };
  const add = (pod: BenchObject, key: string) => {
    const node = nodeName(pod);
    if (node === undefined) return;
    let group = byNode.get(node);
    if (group === undefined) byNode.set(node, (group = new Map()));
    group.set(key, pod);
  };
  const subscription = nodes.events$.subscribe((event) => {
    if (event.type === 'deleted') nodeNames.delete(event.key);
    else nodeNames.add(event.key);
  });
  subscription.add(
    pods.events$.subscribe((event) => {
      if (event.type === 'updated') remove(event.old, event.key);
      if (event.type === 'deleted') remove(event.object, event.key);
      else add(event.object, event.key);
    }),
  );
  return { byNode, subscription };
}

/** The join from scratch over two snapshots: every Pod filed under its Node, Nodes that exist only. */
function joinFromScratch(nodes: Store<KubernetesObject>, pods: Store<BenchObject>): Map<string, BenchObject[]> {
  const byNode = new Map<string, BenchObject[]>();
  for (const name of nodes.keys()) byNode.set(name, []);
  for (const pod of pods.values()) {
    const node = nodeName(pod);
    if (node !== undefined) byNode.get(node)?.push(pod);
  }
  return byNode;
}

/** Main-thread CPU µs per change of feeding `stream` in batches of `chunk`. */
function feed(running: Running, stream: readonly WatchEvent<BenchObject>[], chunk: number): number {
  const batches: WatchEvent<BenchObject>[][] = [];
  for (let i = 0; i < stream.length; i += chunk) batches.push(stream.slice(i, i + chunk));
  gc?.({ type: 'minor' });
  const begin = process.threadCpuUsage();
  for (const batch of batches) running.pods.next(batch);
  const used = process.threadCpuUsage(begin);
  if (!(running.check() >= 0)) throw new Error('the variant computed nothing');
  return (used.user + used.system) / stream.length;
}

const { nodes, pods, stream } = workload(CHANGES, 29);
const samples = Object.fromEntries(
  variants.flatMap((v) => [
    [`${v}:1`, [] as number[]],
    [`${v}:${CHUNK}`, [] as number[]],
  ]),
) as Record<string, number[]>;
// Warm the JIT on every path once before measuring.
for (const variant of variants) {
  const running = start(variant, nodes, pods);
  feed(running, stream.slice(0, variant === 'recompute' ? 20 : 2_000), 1);
  running.stop();
}
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    for (const chunk of [1, CHUNK]) {
      gc?.();
      const running = start(variant, nodes, pods);
      const changes =
        variant === 'recompute'
          ? stream.slice(0, chunk === 1 ? RECOMPUTE_CHANGES : (RECOMPUTE_CHANGES * CHUNK) / 5)
          : stream;
      samples[`${variant}:${chunk}`]!.push(feed(running, changes, chunk));
      running.stop();
    }
  }
  console.error(`round ${round + 1}/${ROUNDS} done, load ${os.loadavg()[0]!.toFixed(1)}`);
}

const m = (variant: Variant, chunk: number) => median(samples[`${variant}:${chunk}`]!);
/**
 * view ÷ floor within each round (the two ran seconds apart), sorted: a round the machine slowed for both cancels
 * out, which a ratio of the two medians does not.
 */
const pairedRatios = (chunk: number): number[] => {
  const views = samples[`view:${chunk}`]!;
  const floors = samples[`floor:${chunk}`]!;
  return views.map((view, round) => view / floors[round]!).sort((a, b) => a - b);
};
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const ratio = (x: number) => `${x >= 100 ? x.toFixed(0) : x.toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? '**met**' : '**not met**');
const rows = [1, CHUNK].map((chunk) => {
  const informer = m('informer', chunk);
  const view = m('view', chunk);
  const floor = m('floor', chunk);
  const recompute = m('recompute', chunk);
  const paired = pairedRatios(chunk);
  return {
    chunk,
    paired,
    informer,
    view,
    floor,
    recompute,
    viewAdds: view - informer,
    floorAdds: floor - informer,
    recomputeAdds: recompute - informer,
  };
});
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' / ');
const table = [
  '## views: the Pods-by-Node join (issue 29)',
  '',
  `\`npm run bench -- views\` (\`bench/views/join.ts\`). ${PODS.toLocaleString('en')} realistic Pods on ${NODES.toLocaleString('en')} Nodes, then`,
  `${CHANGES.toLocaleString('en')} Pod changes (80% updates in place, 10% deletions, 10% creations on a random Node; recomputing:`,
  `${RECOMPUTE_CHANGES} changes one per step, ${(RECOMPUTE_CHANGES * CHUNK) / 5} per chunk); objects parsed and frozen before timing; median of ${ROUNDS} rounds`,
  `interleaving the variants; main-thread CPU µs per change; Node ${process.version}, ${os.availableParallelism()} CPUs (shared; load at the`,
  `end ${load}). "1 per step": one informer snapshot per change; "${CHUNK} per step": one per 64 KiB watch chunk.`,
  '',
  '| delivery | informer alone | + joinView | + hand-written Map join (floor) | + recompute per snapshot | view adds | floor adds | recompute adds |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.chunk} per step | ${fmt(r.informer)} | ${fmt(r.view)} | ${fmt(r.floor)} | ${fmt(r.recompute)} | ${fmt(r.viewAdds)} | ${fmt(r.floorAdds)} | ${fmt(r.recomputeAdds)} |`,
  ),
  '',
  ...rows.flatMap((r) => [
    `- ${r.chunk} per step: informer + view ÷ informer + floor, round by round: best ${ratio(r.paired[0]!)}, median ${ratio(median(r.paired))},` +
      ` worst ${ratio(r.paired[r.paired.length - 1]!)} (target ≤ 1.5× on the median: ${verdict(median(r.paired) <= 1.5)}); the ratio of the medians above is ${ratio(r.view / r.floor)};` +
      ` recomputing ÷ the view = ${ratio(r.recompute / r.view)} (target ≥ 100×: ${verdict(r.recompute / r.view >= 100)});` +
      ` what each adds over the informer: view ${fmt(r.viewAdds)} µs, floor ${fmt(r.floorAdds)} µs (${ratio(r.viewAdds / Math.max(r.floorAdds, 0.01))}).`,
  ]),
  '',
].join('\n');

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'views.md'), table);
console.log(table);
