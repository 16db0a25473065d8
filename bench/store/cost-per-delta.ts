/**
 * Cost of one MODIFIED delta against stores of 1k, 10k and 100k realistic (~2 KB) pods, against floors measured in
 * the same run: a plain `Map.set` on a Map of the same size (store alone), and `JSON.parse(line)` + `Map.set` (what a
 * minimal client does per watch line) against `JSON.parse(line)` + the store. The first list is compared the same
 * way. The store is built with a `byNode` index and the built-in namespace index, so index maintenance is included.
 *
 * Requirements: O(log N) or amortised O(1) per delta, so `growth` (µs at 100k ÷ µs at 1k) stays ≤ 2; and, for the
 * informer targets, the store adds at most ~15 µs per steady-state delta and ~5–10 µs per listed object over the
 * JSON.parse floor.
 * Run: `npx tsx --expose-gc bench/store/cost-per-delta.ts`; writes `bench/results/store.md`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Store, applyWatchEvents, initialStoreState, type StoreState } from '../../src/store/index.js';

interface BenchPod extends KubernetesObject {
  spec: { nodeName: string; containers: unknown[] };
}

/** A pod shaped like a real one: labels, annotations, owner reference, two containers, status conditions. */
function realisticPod(i: number, rv: number): BenchPod {
  const name = `web-${i.toString(36)}-${(i * 7919).toString(36)}`;
  const container = (n: number) => ({
    name: `c${n}`,
    image: `registry.example.com/team/app-${n}:v1.${i % 50}.0`,
    ports: [{ name: 'http', containerPort: 8080 + n, protocol: 'TCP' }],
    env: [{ name: 'MODE', value: 'production' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 + n }, periodSeconds: 10 },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `team-${i % 20}`,
      uid: `0000-${i}-uid-${rv}`,
      resourceVersion: String(rv),
      creationTimestamp: new Date(1_700_000_000_000).toISOString() as unknown as Date,
      labels: { app: `app-${i % 40}`, tier: i % 2 ? 'web' : 'worker', 'pod-template-hash': (i * 31).toString(36) },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-01-01T00:00:00Z', 'example.com/owner': 'team' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${i % 500}`, uid: `rs-uid-${i % 500}`, controller: true }],
    },
    spec: {
      nodeName: `node-${i % 300}`,
      containers: [container(0), container(1)],
      volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
      restartPolicy: 'Always',
    } as BenchPod['spec'],
    status: {
      phase: 'Running',
      podIP: `10.0.${(i >> 8) & 255}.${i & 255}`,
      conditions: ['Ready', 'Initialized', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True' })),
    },
  } as BenchPod;
}

const sizes = [1_000, 10_000, 100_000];
const deltas = 10_000;
const batch = 100;
const rounds = 5;
const gc = (globalThis as { gc?: () => void }).gc;
const indexers = { byNode: (p: BenchPod) => p.spec.nodeName };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const keyOf = (object: KubernetesObject) => `${object.metadata!.namespace}/${object.metadata!.name}`;
type Modified = { type: 'modified'; object: BenchPod };

/** The watch lines of `count` MODIFIED deltas spread over a store of `n`, as the API server would send them. */
function modifiedLines(n: number, count: number): string[] {
  return Array.from({ length: count }, (_, k) => JSON.stringify(realisticPod((k * 7919) % n, n + k + 1)));
}

/**
 * CPU µs per item of `run` on the main thread, with its input built (and garbage collected) outside the measured
 * region. CPU time rather than wall time: on a shared 2-core machine, wall time mostly measures who else was running.
 * Main thread only, so that the background sweeping after `gc()` is not billed to whatever runs next; GC work done
 * on the main thread (scavenges, finalization) counts, GC helper threads do not, for the store and the floors alike.
 */
function timed<I>(input: () => I, count: number, run: (input: I) => void, repeats = 1): number {
  const built = input();
  gc?.();
  const start = process.threadCpuUsage();
  for (let i = 0; i < repeats; i++) run(built);
  const used = process.threadCpuUsage(start);
  return (used.user + used.system) / (count * repeats);
}

/**
 * Repeats for the runs that can repeat on the same input: thread CPU time is accounted in scheduler ticks of a few
 * ms, too coarse for one 1k-object list or 10k `Map.set`s. Lists are repeated up to ~100k objects.
 */
const repeatsFor = (items: number) => Math.max(1, Math.round(100_000 / items));
const mapSetRepeats = 100;

function listEvents(lines: readonly string[]) {
  return [
    { type: 'relistStarted' as const },
    ...lines.map((line) => ({ type: 'listed' as const, object: JSON.parse(line) as BenchPod })),
    { type: 'relistDone' as const, resourceVersion: String(lines.length) },
  ];
}

{
  // Warm the JIT on a small store so that the first row does not pay for compilation.
  const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify(realisticPod(i, i + 1)));
  let state = applyWatchEvents(initialStoreState(Store.empty<BenchPod>({ indexers })), listEvents(lines)).state;
  for (const line of modifiedLines(500, 2_000)) state = applyWatchEvents(state, [{ type: 'modified', object: JSON.parse(line) as BenchPod }]).state;
}

interface Subject {
  readonly n: number;
  readonly base: StoreState<BenchPod>;
  readonly map: Map<string, BenchPod>;
  readonly list: string[];
  readonly lines: string[];
  readonly fill: number[];
  readonly fillFloor: number[];
  readonly single: number[];
  readonly batched: number[];
  readonly floor: number[];
  readonly parsedFloor: number[];
  readonly parsedStore: number[];
}

/** The first list, as the informer sees it: parse each listed item, then swap them in at relistDone. */
function firstList(list: readonly string[]): StoreState<BenchPod> {
  return applyWatchEvents(initialStoreState(Store.empty<BenchPod>({ indexers })), listEvents(list)).state;
}

function firstListFloor(list: readonly string[]): Map<string, BenchPod> {
  const map = new Map<string, BenchPod>();
  for (const line of list) {
    const object = JSON.parse(line) as BenchPod;
    map.set(keyOf(object), object);
  }
  return map;
}

const subjects: Subject[] = sizes.map((n) => {
  const list = Array.from({ length: n }, (_, i) => JSON.stringify(realisticPod(i, i + 1)));
  const lines = modifiedLines(n, deltas);
  return {
    n, base: firstList(list), map: firstListFloor(list), list, lines,
    fill: [], fillFloor: [], single: [], batched: [], floor: [], parsedFloor: [], parsedStore: [],
  };
});

const parsed = (lines: readonly string[]) => (): Modified[] =>
  lines.map((line) => ({ type: 'modified', object: JSON.parse(line) as BenchPod }));

// Rounds interleave the sizes and the subjects, so that load from other processes on a shared machine hits all alike.
for (let round = 0; round < rounds; round++) {
  for (const subject of subjects) {
    const { n, base, map, list, lines } = subject;
    subject.fill.push(timed(() => list, n, firstList, repeatsFor(n)));
    subject.fillFloor.push(timed(() => list, n, firstListFloor, repeatsFor(n)));
    subject.single.push(timed(parsed(lines), deltas, (events) => {
      let state = base;
      for (const event of events) state = applyWatchEvents(state, [event]).state;
    }));
    subject.batched.push(timed(parsed(lines), deltas, (events) => {
      let state = base;
      for (let i = 0; i < events.length; i += batch) state = applyWatchEvents(state, events.slice(i, i + batch)).state;
    }));
    subject.floor.push(timed(parsed(lines), deltas, (events) => {
      for (const event of events) map.set(keyOf(event.object), event.object);
    }, mapSetRepeats));
    subject.parsedStore.push(timed(() => lines, deltas, (input) => {
      let state = base;
      for (const line of input) state = applyWatchEvents(state, [{ type: 'modified', object: JSON.parse(line) as BenchPod }]).state;
    }));
    subject.parsedFloor.push(timed(() => lines, deltas, (input) => {
      for (const line of input) {
        const object = JSON.parse(line) as BenchPod;
        map.set(keyOf(object), object);
      }
    }));
  }
  console.error(`round ${round + 1}/${rounds}`);
}

const rows = subjects.map((s) => ({
  n: s.n, fill: median(s.fill), fillFloor: median(s.fillFloor), single: median(s.single), batched: median(s.batched),
  floor: median(s.floor), parsedFloor: median(s.parsedFloor), parsedStore: median(s.parsedStore),
}));

const first = rows[0]!;
const last = rows[rows.length - 1]!;
const fmt = (x: number) => x.toFixed(1);
const ratio = (x: number) => `${x.toFixed(2)}×`;
const table = [
  '## store: cost per MODIFIED delta and per listed object',
  '',
  `Realistic ~${JSON.stringify(realisticPod(1, 1)).length} B pods, namespace index + one custom index; ${deltas} deltas per size;`,
  `median of ${rounds} interleaved rounds; main-thread CPU time (not wall time); Node ${process.version}, ${os.availableParallelism()} CPUs (shared).`,
  '',
  '### Store alone (delta objects parsed before timing; includes deep-freezing them and both indexes)',
  '',
  '| objects | store µs/delta (1 per produce) | store µs/delta (batches of 100) | Map.set µs | store ÷ Map.set |',
  '|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.n.toLocaleString('en')} | ${fmt(r.single)} | ${fmt(r.batched)} | ${fmt(r.floor)} | ${fmt(r.single / r.floor)} |`),
  '',
  `Growth 1k → 100k: ${ratio(last.single / first.single)} (1 per produce), ${ratio(last.batched / first.batched)} (batched); target ≤ 2×.`,
  '',
  '### Realistic: per watch line, JSON.parse + Map.set (floor) vs JSON.parse + store apply (rxkube, 1 per produce)',
  '',
  '| objects | floor µs/delta | rxkube µs/delta | store adds µs | rxkube ÷ floor | first list: floor µs/object | rxkube µs/object | store adds µs | rxkube ÷ floor |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.n.toLocaleString('en')} | ${fmt(r.parsedFloor)} | ${fmt(r.parsedStore)} | ${fmt(r.parsedStore - r.parsedFloor)} | ${ratio(r.parsedStore / r.parsedFloor)} | ${fmt(r.fillFloor)} | ${fmt(r.fill)} | ${fmt(r.fill - r.fillFloor)} | ${ratio(r.fill / r.fillFloor)} |`),
  '',
  'First list: one relist (`relistStarted`, a `listed` per parsed line, `relistDone`, in one `applyWatchEvents` call)',
  'into an empty store, per object; its floor parses the same lines into a Map.',
  '',
].join('\n');

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'store.md'), table);
console.log(table);
