/**
 * Cost of one MODIFIED delta against stores of 1k, 10k and 100k realistic (~2 KB) pods, with a plain `Map.set` on a
 * Map of the same size as the floor measured in the same run. The store is built with a `byNode` index and the
 * built-in namespace index, so index maintenance is included.
 *
 * The requirement is O(log N) or amortised O(1) per delta: `growth` (µs at 100k ÷ µs at 1k) must stay ≤ 2.
 * Run: `npx tsx bench/store/cost-per-delta.ts`; writes `bench/results/store.md`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
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
const deltas = 4_000;
const batch = 100;
const gc = (globalThis as { gc?: () => void }).gc;

function build(n: number): StoreState<BenchPod> {
  const store = Store.empty<BenchPod>({ indexers: { byNode: (p) => p.spec.nodeName } });
  const events = [
    { type: 'relistStarted' as const },
    ...Array.from({ length: n }, (_, i) => ({ type: 'listed' as const, object: realisticPod(i, i + 1) })),
    { type: 'relistDone' as const, resourceVersion: String(n) },
  ];
  return applyWatchEvents(initialStoreState(store), events).state;
}

function modifiedEvents(n: number) {
  return Array.from({ length: deltas }, (_, k) => {
    const i = (k * 7919) % n;
    return { type: 'modified' as const, object: realisticPod(i, n + k + 1) };
  });
}

type Modified = ReturnType<typeof modifiedEvents>;

const rounds = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * µs per delta for one run over freshly built (unfrozen) delta objects, as a reflector would hand them over; the
 * objects are built outside the timed region.
 */
function timed(n: number, run: (events: Modified) => void): number {
  const events = modifiedEvents(n);
  gc?.();
  const start = performance.now();
  run(events);
  return ((performance.now() - start) * 1000) / deltas;
}

{
  // Warm the JIT on a small store so that the first row does not pay for compilation.
  let state = build(500);
  for (const event of modifiedEvents(500)) state = applyWatchEvents(state, [event]).state;
}

interface Subject {
  readonly n: number;
  readonly base: StoreState<BenchPod>;
  readonly map: Map<string, BenchPod>;
  readonly fill: number;
  readonly single: number[];
  readonly batched: number[];
  readonly floor: number[];
}

const subjects: Subject[] = sizes.map((n) => {
  gc?.();
  const fillStart = performance.now();
  const base = build(n);
  const fill = ((performance.now() - fillStart) * 1000) / n;
  const map = new Map<string, BenchPod>();
  for (let i = 0; i < n; i++) map.set(`team-${i % 20}/p${i}`, realisticPod(i, i));
  return { n, base, map, fill, single: [], batched: [], floor: [] };
});

// Rounds interleave the sizes, so that load from other processes on a shared machine hits every size alike.
for (let round = 0; round < rounds; round++) {
  for (const subject of subjects) {
    const { n, base, map } = subject;
    subject.single.push(timed(n, (events) => {
      let state = base;
      for (const event of events) state = applyWatchEvents(state, [event]).state;
    }));
    subject.batched.push(timed(n, (events) => {
      let state = base;
      for (let i = 0; i < events.length; i += batch) state = applyWatchEvents(state, events.slice(i, i + batch)).state;
    }));
    subject.floor.push(timed(n, (events) => {
      for (const event of events) map.set(`${event.object.metadata!.namespace}/${event.object.metadata!.name}`, event.object);
    }));
  }
  console.error(`round ${round + 1}/${rounds}`);
}

const rows = subjects.map((s) => ({
  n: s.n, fill: s.fill, single: median(s.single), batched: median(s.batched), floor: median(s.floor),
}));

const first = rows[0]!;
const last = rows[rows.length - 1]!;
const fmt = (x: number) => x.toFixed(1);
const table = [
  '## store: cost per MODIFIED delta',
  '',
  `Realistic ~2 KB pods, namespace index + one custom index; ${deltas} deltas per size; median of ${rounds} interleaved rounds.`,
  'Delta objects are built before timing; the store columns include deep-freezing them and maintaining both indexes.',
  '',
  '| objects | store µs/delta (1 per produce) | store µs/delta (batches of 100) | Map.set floor µs | store ÷ floor | first list µs/object |',
  '|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.n.toLocaleString('en')} | ${fmt(r.single)} | ${fmt(r.batched)} | ${fmt(r.floor)} | ${fmt(r.single / r.floor)} | ${fmt(r.fill)} |`),
  '',
  `Growth 1k → 100k: ${(last.single / first.single).toFixed(2)}× (1 per produce), ${(last.batched / first.batched).toFixed(2)}× (batched); target ≤ 2×.`,
  'First list: one relist (built objects, then one `applyWatchEvents` call) into an empty store, per object.',
  '',
].join('\n');

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'store.md'), table);
console.log(table);
