/**
 * Cost of one MODIFIED delta and of one listed object in the store, against floors measured in the same run: a plain
 * `Map.set` on a Map of the same size (store alone), and `JSON.parse(line)` + `Map.set` (what a minimal client does
 * per watch line) against `JSON.parse(line)` + the deep freeze listWatch applies to a decoded line + the store. The store has a second index beside the built-in namespace
 * index, so index maintenance is included, and so is deep-freezing every incoming object.
 *
 * Two kinds of objects: realistic pods (~1.8 KB of JSON) at 1k, 10k and 100k objects, and small ConfigMaps (~300 B)
 * from 1k to 1M objects (a million realistic pods and their floor would not fit beside each other here).
 *
 * Two batch sizes: one delta per `produce` (one snapshot per delta), and one `produce` per network chunk: the
 * deltas whose lines fit in 64 KiB, applied with `applyWatchBatch` as the informer applies a chunk.
 *
 * Targets (issue 14): at one snapshot per batch the store adds at most 4 µs per delta over the parse floor at 100k
 * realistic pods, and its cost per delta grows by at most 1.3× from 1k to 1M objects.
 * Run: `npx tsx --expose-gc bench/store/cost-per-delta.ts` (the 1M rows need `--max-old-space-size=12288`, which
 * `npm run bench` passes); writes `bench/results/store.md`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freezeJsonTree } from '../../src/objects/index.js';
import { Store, applyWatchBatch, applyWatchEvents, initialStoreState, type StoreState } from '../../src/store/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { realisticPods, smallConfigMaps, type BenchObject, type ObjectKind } from './objects.js';

const DELTAS = 10_000;
const ROUNDS = 7;
const CHUNK_BYTES = 64 * 1024;
const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
const median = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const keyOf = (object: BenchObject) => `${object.metadata!.namespace}/${object.metadata!.name}`;
type Modified = Extract<WatchEvent<BenchObject>, { type: 'modified' }>;

/**
 * CPU µs per item of `run` on the main thread, with its input built (and garbage collected) outside the measured
 * region. CPU time rather than wall time: on a shared 2-core machine, wall time mostly measures who else was running.
 * Main thread only, so that background GC work is not billed to whatever runs next; GC work done on the main thread
 * (scavenges, finalization) counts, GC helper threads do not, for the store and the floors alike.
 */
function timed<I>(input: () => I, count: number, run: (input: I) => void, repeats = 1): number {
  const built = input();
  // A minor collection empties the young generation, so every run starts from the same nursery; a full one would
  // mark the whole multi-GB heap of the million-object rows before every run.
  gc?.({ type: 'minor' });
  const start = process.threadCpuUsage();
  for (let i = 0; i < repeats; i++) run(built);
  const used = process.threadCpuUsage(start);
  return (used.user + used.system) / (count * repeats);
}

/** Thread CPU time is accounted in ticks of a few ms: short runs are repeated up to ~100k items. */
const repeatsFor = (items: number) => Math.max(1, Math.round(100_000 / items));

/**
 * Applies `events` in consecutive batches of `size`, each in as few exact steps as `applyWatchBatch` takes. Each
 * object is deep-frozen first as listWatch freezes a decoded watch line (`freezeJsonTree`), so that the store's own
 * freeze finds it done, exactly as in the informer.
 */
function applyInBatches(
  state: StoreState<BenchObject>,
  events: readonly Modified[],
  size: number,
): StoreState<BenchObject> {
  for (const event of events) freezeJsonTree(event.object);
  for (let start = 0; start < events.length; start += size) {
    const batch = size === 1 ? [events[start]!] : events.slice(start, start + size);
    for (let from = 0; from < batch.length; ) {
      const step = applyWatchBatch(state, batch, from);
      state = step.state;
      from = step.next;
    }
  }
  return state;
}

interface Subject {
  readonly kind: ObjectKind;
  readonly n: number;
  /** Deltas per 64 KiB chunk of watch lines. */
  readonly chunk: number;
  readonly base: StoreState<BenchObject>;
  readonly map: Map<string, BenchObject>;
  readonly list: string[];
  readonly lines: string[];
  readonly samples: Record<Measure, number[]>;
}

type Measure =
  | 'fill'
  | 'fillFloor'
  | 'single'
  | 'chunked'
  | 'mapSet'
  | 'parsedSingle'
  | 'parsedChunked'
  | 'parsedFloor';
const measures: readonly Measure[] = [
  'fill',
  'fillFloor',
  'single',
  'chunked',
  'mapSet',
  'parsedSingle',
  'parsedChunked',
  'parsedFloor',
];

function storeFor(kind: ObjectKind): Store<BenchObject> {
  return Store.empty<BenchObject>({ indexers: { second: kind.indexer } });
}

/** The first list, as the informer sees it: parse each listed item, then swap them in at relistDone. */
function firstList(kind: ObjectKind, list: readonly string[]): StoreState<BenchObject> {
  const events: WatchEvent<BenchObject>[] = [{ type: 'relistStarted' }];
  for (const line of list) events.push({ type: 'listed', object: JSON.parse(line) as BenchObject });
  events.push({ type: 'relistDone', resourceVersion: String(list.length) });
  return applyWatchEvents(initialStoreState(storeFor(kind)), events).state;
}

function firstListFloor(list: readonly string[]): Map<string, BenchObject> {
  const map = new Map<string, BenchObject>();
  for (const line of list) {
    const object = JSON.parse(line) as BenchObject;
    map.set(keyOf(object), object);
  }
  return map;
}

/** Rows above this many objects skip the first-list measurement: it would need a second copy of the cache. */
const FILL_MAX = 100_000;

function subject(kind: ObjectKind, n: number): Subject {
  // The cache is parsed once and shared by the store and the floor's Map, so that a million realistic pods fit.
  const objects: BenchObject[] = [];
  const list: string[] = [];
  for (let i = 0; i < n; i++) {
    const line = JSON.stringify(kind.make(i, i + 1));
    objects.push(JSON.parse(line) as BenchObject);
    if (n <= FILL_MAX) list.push(line);
  }
  const listing: WatchEvent<BenchObject>[] = [{ type: 'relistStarted' }];
  for (const object of objects) listing.push({ type: 'listed', object });
  listing.push({ type: 'relistDone', resourceVersion: String(n) });
  const base = applyWatchEvents(initialStoreState(storeFor(kind)), listing).state;
  const map = new Map<string, BenchObject>();
  for (const object of objects) map.set(keyOf(object), object);
  // Consecutive deltas modify keys far apart (7919 is prime to every size), each key at most once per size.
  const lines = Array.from({ length: DELTAS }, (_, k) => JSON.stringify(kind.make((k * 7919) % n, n + k + 1)));
  const chunk = Math.max(
    1,
    Math.floor(CHUNK_BYTES / (lines.reduce((sum, line) => sum + line.length + 1, 0) / lines.length)),
  );
  const samples = Object.fromEntries(measures.map((m) => [m, [] as number[]])) as Record<Measure, number[]>;
  return { kind, n, chunk, base, map, list, lines, samples };
}

const parsed = (lines: readonly string[]) => (): Modified[] =>
  lines.map((line) => ({ type: 'modified', object: JSON.parse(line) as BenchObject }));

function measureRound(s: Subject): void {
  const { kind, n, base, map, list, lines, chunk, samples } = s;
  if (n <= FILL_MAX) {
    samples.fill.push(
      timed(
        () => list,
        n,
        (input) => firstList(kind, input),
        repeatsFor(n),
      ),
    );
    samples.fillFloor.push(timed(() => list, n, firstListFloor, repeatsFor(n)));
  }
  samples.single.push(timed(parsed(lines), DELTAS, (events) => applyInBatches(base, events, 1)));
  samples.chunked.push(timed(parsed(lines), DELTAS, (events) => applyInBatches(base, events, chunk)));
  samples.mapSet.push(
    timed(
      parsed(lines),
      DELTAS,
      (events) => {
        for (const event of events) map.set(keyOf(event.object), event.object);
      },
      100,
    ),
  );
  const parseBatch = (input: readonly string[], start: number, size: number): Modified[] => {
    const batch: Modified[] = [];
    for (let i = start; i < start + size && i < input.length; i++)
      batch.push({ type: 'modified', object: JSON.parse(input[i]!) as BenchObject });
    return batch;
  };
  samples.parsedSingle.push(
    timed(
      () => lines,
      DELTAS,
      (input) => {
        let state = base;
        for (let i = 0; i < input.length; i++) state = applyInBatches(state, parseBatch(input, i, 1), 1);
      },
    ),
  );
  samples.parsedChunked.push(
    timed(
      () => lines,
      DELTAS,
      (input) => {
        let state = base;
        for (let i = 0; i < input.length; i += chunk) state = applyInBatches(state, parseBatch(input, i, chunk), chunk);
      },
    ),
  );
  samples.parsedFloor.push(
    timed(
      () => lines,
      DELTAS,
      (input) => {
        for (const line of input) {
          const object = JSON.parse(line) as BenchObject;
          map.set(keyOf(object), object);
        }
      },
    ),
  );
}

const plan: [ObjectKind, number][] = [
  [realisticPods, 1_000],
  [realisticPods, 10_000],
  [realisticPods, 100_000],
  [realisticPods, 1_000_000],
  [smallConfigMaps, 1_000],
  [smallConfigMaps, 10_000],
  [smallConfigMaps, 100_000],
  [smallConfigMaps, 1_000_000],
];
const kinds = [realisticPods, smallConfigMaps];

/** What one row's process reports: the median of each measure, and the deltas per chunk. */
interface RowResult {
  readonly kind: number;
  readonly n: number;
  readonly chunk: number;
  readonly medians: Record<Measure, number>;
}

/**
 * One row, in this process: warm the JIT on a small store, then measure every round. Each row has a process of its
 * own so that its garbage collections are those of its own heap: beside the million-object rows, a 100k row paid
 * for marking several GB it did not allocate, and which row paid depended on when a major collection fell.
 */
function runRow(kindIndex: number, n: number): RowResult {
  const kind = kinds[kindIndex]!;
  measureRound(subject(kind, 500));
  const s = subject(kind, n);
  for (let round = 0; round < ROUNDS; round++) measureRound(s);
  return {
    kind: kindIndex,
    n,
    chunk: s.chunk,
    medians: Object.fromEntries(measures.map((m) => [m, median(s.samples[m])])) as Record<Measure, number>,
  };
}

const rowArg = process.argv.indexOf('--row');
if (rowArg >= 0) {
  const [kindIndex, n] = process.argv[rowArg + 1]!.split(':').map(Number) as [number, number];
  process.stdout.write(`${JSON.stringify(runRow(kindIndex, n))}\n`);
  process.exit(0);
}

const results: RowResult[] = plan.map(([kind, n]) => {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--row', `${kinds.indexOf(kind)}:${n}`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (child.status !== 0)
    throw new Error(`store bench row ${kind.label} × ${n} exited with ${child.status ?? child.signal}`);
  console.error(`${kind.label} × ${n.toLocaleString('en')} done, load ${os.loadavg()[0]!.toFixed(1)}`);
  const row = JSON.parse(child.stdout.trim().split('\n').pop()!) as RowResult;
  // JSON carries a measure a row skips (NaN) as null.
  for (const m of measures) row.medians[m] ??= Number.NaN;
  return row;
});

const fmt = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(1));
const ratio = (x: number) => `${x.toFixed(2)}×`;
const rows = results.map((r) => ({ s: { kind: kinds[r.kind]!, n: r.n, chunk: r.chunk }, m: r.medians }));
const rowsOf = (kind: ObjectKind) => rows.filter((r) => r.s.kind === kind);

function growth(kind: ObjectKind, measure: Measure): { from: number; to: number; factor: number } {
  const of = rowsOf(kind);
  const first = of[0]!;
  const last = of[of.length - 1]!;
  return { from: first.s.n, to: last.s.n, factor: last.m[measure] / first.m[measure] };
}

const at100k = rows.find((r) => r.s.kind === realisticPods && r.s.n === 100_000)!;
const added100k = at100k.m.parsedChunked - at100k.m.parsedFloor;
const podGrowth = growth(realisticPods, 'chunked');
const podGrowthParsed = growth(realisticPods, 'parsedChunked');
const smallGrowth = growth(smallConfigMaps, 'chunked');
const smallGrowthMap = growth(smallConfigMaps, 'mapSet');
const smallGrowthFloor = growth(smallConfigMaps, 'parsedFloor');
const verdict = (ok: boolean) => (ok ? '**met**' : '**not met**');
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' / ');
const span = (g: { from: number; to: number }) => `${g.from.toLocaleString('en')} → ${g.to.toLocaleString('en')}`;

const table = [
  '## store: cost per MODIFIED delta and per listed object',
  '',
  `\`npm run bench -- store\` (\`bench/store/cost-per-delta.ts\`). ${DELTAS.toLocaleString('en')} deltas per size, each to a different`,
  `object; namespace index + one more index; each row in its own process, median of ${ROUNDS} rounds interleaving the measures;\n` +
    `main-thread CPU time (not wall time);`,
  `Node ${process.version}, ${os.availableParallelism()} CPUs (shared; load average at the end ${load}).`,
  '"per produce": one `applyWatchBatch` step (one snapshot) per delta, as the informer did before issue 14;',
  '"per chunk": one step per 64 KiB of watch lines (the deltas one network chunk carries), as the informer does now.',
  '',
  '### Store alone (delta objects parsed before timing; includes deep-freezing them and both indexes)',
  '',
  '| objects | object kind | store µs/delta, per produce | store µs/delta, per chunk (deltas per chunk) | Map.set µs | per chunk ÷ Map.set |',
  '|---:|---|---:|---:|---:|---:|',
  ...rows.map(
    ({ s, m }) =>
      `| ${s.n.toLocaleString('en')} | ${s.kind.label} | ${fmt(m.single)} | ${fmt(m.chunked)} (${s.chunk}) | ${fmt(m.mapSet)} | ${fmt(m.chunked / m.mapSet)} |`,
  ),
  '',
  `- Growth of the store's cost per delta (per chunk), ${span(podGrowth)} realistic pods: ${ratio(podGrowth.factor)} (with the parse: ${ratio(podGrowthParsed.factor)}); target ≤ 1.3×: ${verdict(podGrowth.factor <= 1.3)}.`,
  `- ${span(smallGrowth)} small ConfigMaps: ${ratio(smallGrowth.factor)}, where a plain \`Map.set\` grows ${ratio(smallGrowthMap.factor)} and`,
  `  JSON.parse + Map.set ${ratio(smallGrowthFloor.factor)}: with little work per object, the cost at a million is that of reaching cold memory.`,
  '',
  '### Per watch line: JSON.parse + Map.set (floor) against JSON.parse + the store (rxkube)',
  '',
  '| objects | object kind | floor µs/delta | rxkube per produce | rxkube per chunk | store adds µs, per chunk | rxkube per chunk ÷ floor | first list: floor µs/object | rxkube µs/object | store adds µs |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    ({ s, m }) =>
      `| ${s.n.toLocaleString('en')} | ${s.kind.label} | ${fmt(m.parsedFloor)} | ${fmt(m.parsedSingle)} | ${fmt(m.parsedChunked)} | ${fmt(m.parsedChunked - m.parsedFloor)} | ${ratio(m.parsedChunked / m.parsedFloor)} | ${fmt(m.fillFloor)} | ${fmt(m.fill)} | ${fmt(m.fill - m.fillFloor)} |`,
  ),
  '',
  `- At 100,000 realistic pods the store adds ${fmt(added100k)} µs per delta over the parse floor, at one snapshot per chunk; target ≤ 4 µs: ${verdict(added100k <= 4)}.`,
  '- First list: one relist (`relistStarted`, a `listed` per parsed line, `relistDone`) into an empty store, per object;',
  '  its floor parses the same lines into a Map.',
  '',
].join('\n');

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'store.md'), table);
console.log(table);
