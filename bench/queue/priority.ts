/**
 * `npx tsx bench/queue/priority.ts` (`npm run bench -- queue`): rxkube's reconcile queue against controller-runtime's
 * priority queue (`bench/go-priorityqueue`, built and run by this script), on one workload: 1,000,000 keys preloaded
 * at low priority, then high-priority keys, reconciles of 1 ms, concurrency 1, 64 and 1,000.
 *
 * Two streams of high-priority keys: `steady`, new keys at a quarter of the nominal capacity (concurrency / 1 ms,
 * capped at 20,000/s), and `saturating`, twice `concurrency` high keys each added again as soon as its run is done,
 * which keeps every worker busy with high keys. Each row runs in a fresh process, rxkube and controller-runtime
 * alternately, `ROUNDS` times; the table shows best / median / worst.
 *
 * `--row <concurrency> <mode>` runs one rxkube row and prints its JSON (the parent spawns it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { BehaviorSubject, Observable } from 'rxjs';
import type { Subscriber } from 'rxjs';
import { HIGH_PRIORITY, LOW_PRIORITY, reconcile } from '../../src/controller/index.js';
import type { ReconcileKeyRequest, ReconcileTrigger } from '../../src/controller/index.js';
import { buildGo } from '../support/go.js';
import { FloorPriorityQueue } from './floor.js';
import { IoWork } from './io-work.js';

const LOW = 1_000_000;
const DURATION_MS = 3_000;
const CONCURRENCIES = [1, 64, 1000] as const;
const MODES = ['steady', 'saturating'] as const;
const ROUNDS = 3;
/** The aging of this benchmark: the default `after` (30 s) is longer than a row, so it is shortened to 1 s. */
const AGING = { after: 1_000, every: 4 } as const;

type Mode = (typeof MODES)[number];

/** One row's figures, the same fields on both sides (`bench/go-priorityqueue/main.go`). */
interface Row {
  readonly implementation: string;
  readonly version?: string;
  readonly mode: Mode;
  readonly concurrency: number;
  readonly preloadSeconds: number;
  readonly completed: number;
  readonly perSecond: number;
  readonly highTriggered: number;
  readonly highStarted: number;
  readonly highP50Ms: number;
  readonly highP99Ms: number;
  readonly lowStarted: number;
  /** ms from the start of the row to the first start of a low key; -1: none started. */
  readonly firstLowStartMs: number;
  /**
   * The aging bound, measured: the largest `s / (i + 1 + D / every)` over the low keys that started, where `s` is
   * the start's position among the starts of the row that the bound counts (1-based: every start, less a high key's
   * start in a held-back slot), `i` the number of low keys preloaded before it (all of them still waiting, and
   * overdue, when the row starts), and `D = (every - 1) · (u - 1)` the starts rxkube's aging may put off, `u` the
   * slots low keys may use (`D = 0` for the floor and controller-runtime, which promise nothing). Aging promises at
   * most `every`. 0 when no low key started.
   */
  readonly lowBoundRatio: number;
  readonly lowStillWaiting: number;
}

/** The steady stream's rate: a quarter of concurrency / 1 ms, at most 20,000/s. */
const steadyRate = (concurrency: number): number => Math.min(concurrency * 250, 20_000);
const lowKey = (i: number): string => `ns-${Math.floor(i / 10_000)}/low-${i}`;
const highKey = (j: number): string => `ns-${j % 100}/high-${j}`;

/**
 * The steady stream's producer: a worker thread that sleeps until each key is due (`Atomics.wait`, against absolute
 * targets, like the Go producer's `time.Sleep`) and posts its number. Its messages reach the main thread as I/O does
 * (an informer's watch events come from a socket), not in the timer phase where the runs' 1 ms timers end, which
 * would line triggers up with free slots and flatter the wait.
 */
const PRODUCER = `
const { parentPort, workerData } = require('node:worker_threads');
const { interval, duration } = workerData;
const pause = new Int32Array(new SharedArrayBuffer(4));
const start = performance.now();
for (let j = 0; ; j += 1) {
  const due = start + j * interval;
  if (due - start >= duration) break;
  const wait = due - performance.now();
  if (wait > 0) Atomics.wait(pause, 0, 0, wait);
  parentPort.postMessage(j);
}
parentPort.postMessage(-1);
`;

/** What the harness needs of a queue: add a key at a priority, open the gate. */
interface Contender {
  add(key: string, priority: number): void;
  start(): void;
}

type Side = 'rxkube' | 'floor' | 'controller-runtime';
/** How a run's 1 ms passes: `setTimeout(1)`, an I/O completion (`io-work.ts`), or Go's `time.Sleep`. */
type Work = 'timer' | 'io' | 'sleep';

interface Contestant {
  readonly side: Side;
  readonly work: Work;
  /** rxkube with `reserved`: {@link reservedSlots} of the slots held back for keys above low. */
  readonly reserved?: boolean;
}

/**
 * The held-back slots of the `reserved` rows: 3/8 of the workers, a little over the steady stream's share (a
 * quarter of the capacity), as `ReconcileOptions.reserved` advises sizing them: the live keys that run at once, and
 * some margin.
 */
const reservedSlots = (concurrency: number): number => Math.floor((concurrency * 3) / 8);

/** Every row of a round, in this order: the two JavaScript queues with each kind of work, then controller-runtime. */
const CONTESTANTS: readonly Contestant[] = [
  { side: 'rxkube', work: 'timer' },
  { side: 'rxkube', work: 'io' },
  { side: 'rxkube', work: 'io', reserved: true },
  { side: 'floor', work: 'timer' },
  { side: 'floor', work: 'io' },
  { side: 'controller-runtime', work: 'sleep' },
];
const WORK_NAMES: Record<Work, string> = { timer: '`setTimeout`', io: 'I/O completion', sleep: '`time.Sleep`' };
const label = ({ side, work, reserved }: Contestant): string =>
  `${side}${reserved === true ? ' reserved' : ''} (${work})`;

/** `work` runs each key; `onDone` hears each run that completed. */
function contender(
  side: Exclude<Side, 'controller-runtime'>,
  concurrency: number,
  work: (key: string) => Promise<void>,
  onDone: (key: string) => void,
  reserved = false,
): Contender {
  if (side === 'floor') return new FloorPriorityQueue(concurrency, work, onDone);
  let push: Subscriber<ReconcileTrigger> | undefined;
  const gate = new BehaviorSubject(false);
  new Observable<ReconcileTrigger>((subscriber) => void (push = subscriber))
    .pipe(
      reconcile(({ key }: ReconcileKeyRequest) => work(key), {
        concurrency,
        gate,
        globalRateLimiter: false,
        aging: AGING,
        reserved: reserved ? { slots: reservedSlots(concurrency) } : undefined,
      }),
    )
    .subscribe((event) => event.type === 'succeeded' && onDone(event.key));
  return { add: (key, priority) => push!.next({ key, priority }), start: () => gate.next(true) };
}

/** Runs the JIT over the queue's paths (triggers, priorities, 1 ms runs, the ready set) before anything is measured. */
async function warmUp(side: Exclude<Side, 'controller-runtime'>, concurrency: number, sleep: () => Promise<void>) {
  let left = 20_000;
  await new Promise<void>((done) => {
    const queue = contender(side, concurrency, sleep, () => --left === 0 && done());
    for (let i = 0; i < 10_000; i += 1) queue.add(`warm-${i % 100}/low-${i}`, LOW_PRIORITY);
    queue.start();
    for (let i = 0; i < 10_000; i += 1) queue.add(`warm-${i % 100}/high-${i}`, HIGH_PRIORITY);
  });
}

/** One row of rxkube or of the floor, in this process. */
async function runRow(
  side: Exclude<Side, 'controller-runtime'>,
  concurrency: number,
  mode: Mode,
  workKind: Work,
  reserved: boolean,
): Promise<Row> {
  const io = workKind === 'io' ? new IoWork(1) : undefined;
  const sleep = io !== undefined ? () => io.sleep() : () => new Promise<void>((resolve) => setTimeout(resolve, 1));
  await warmUp(side, Math.min(concurrency, 64), sleep);
  const triggeredAt = new Map<string, number>();
  const highWaits: number[] = [];
  let start = 0;
  let deadline = Number.POSITIVE_INFINITY;
  let stopped = false;
  let completed = 0;
  let highTriggered = 0;
  let lowStarted = 0;
  let firstLow = -1;
  let starts = 0;
  let lowBoundRatio = 0;
  // Starts rxkube's aging may put off (`agingPassLimit`): a round of the slots low keys may use, as a share of i + 1.
  const lowSlots = concurrency - (reserved ? reservedSlots(concurrency) : 0);
  const deferred = side === 'rxkube' ? ((AGING.every - 1) * (lowSlots - 1)) / AGING.every : 0;
  // Low keys running now. While they fill every slot they may use, a high key can only start in a held-back slot,
  // which the bound does not count (the runner's own test, on the count it keeps of such runs).
  let lowRunning = 0;
  const work = (key: string): Promise<void> => {
    const now = performance.now();
    const high = key.includes('/high-');
    if (now < deadline && !(high && lowRunning >= lowSlots)) starts += 1;
    if (high) {
      const at = triggeredAt.get(key);
      if (at !== undefined && now < deadline) highWaits.push(now - at);
    } else {
      lowRunning += 1;
      if (now < deadline) {
        lowStarted += 1;
        if (firstLow < 0) firstLow = now - start;
        lowBoundRatio = Math.max(lowBoundRatio, starts / (Number(key.slice(key.lastIndexOf('-') + 1)) + 1 + deferred));
      }
    }
    return sleep();
  };
  const queue = contender(
    side,
    concurrency,
    work,
    (key) => {
      const high = key.includes('/high-');
      if (!high) lowRunning -= 1;
      if (performance.now() < deadline) completed += 1;
      if (mode === 'saturating' && !stopped && high) addHigh(key);
    },
    reserved,
  );
  const addHigh = (key: string): void => {
    triggeredAt.set(key, performance.now());
    highTriggered += 1;
    queue.add(key, HIGH_PRIORITY);
  };
  const preload = performance.now();
  for (let i = 0; i < LOW; i += 1) queue.add(lowKey(i), LOW_PRIORITY);
  const preloadSeconds = (performance.now() - preload) / 1000;
  globalThis.gc?.();
  // Every low key has waited at least `after` when the row starts: all are overdue, as the bound check assumes.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, preload + preloadSeconds * 1000 + AGING.after - performance.now())),
  );
  start = performance.now();
  deadline = start + DURATION_MS;
  queue.start();
  if (mode === 'saturating') {
    for (let j = 0; j < 2 * concurrency; j += 1) addHigh(highKey(j));
  } else {
    const producer = new Worker(PRODUCER, {
      eval: true,
      workerData: { interval: 1000 / steadyRate(concurrency), duration: DURATION_MS },
    });
    producer.on('message', (j: number) => (j < 0 ? void producer.terminate() : addHigh(highKey(j))));
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - performance.now())));
  stopped = true;
  await io?.stop();
  highWaits.sort((a, b) => a - b);
  const pick = (q: number): number =>
    highWaits.length === 0 ? -1 : highWaits[Math.min(highWaits.length - 1, Math.ceil(q * highWaits.length) - 1)]!;
  return {
    implementation: side === 'floor' ? 'plain-JS floor' : `rxkube reconcile${reserved ? ', reserved' : ''}`,
    mode,
    concurrency,
    preloadSeconds,
    completed,
    perSecond: completed / (DURATION_MS / 1000),
    highTriggered,
    highStarted: highWaits.length,
    highP50Ms: pick(0.5),
    highP99Ms: pick(0.99),
    lowStarted,
    firstLowStartMs: firstLow,
    lowBoundRatio,
    lowStillWaiting: LOW - lowStarted,
  };
}

/** Runs one row in a child process: rxkube and the floor through this script, controller-runtime through its binary. */
function spawnRow(contender: Contestant, binary: string | undefined, concurrency: number, mode: Mode): Row | string {
  const { side, work, reserved } = contender;
  const run =
    side !== 'controller-runtime'
      ? spawnSync(
          process.execPath,
          [
            '--expose-gc',
            '--max-old-space-size=4096',
            '--import',
            'tsx',
            fileURLToPath(import.meta.url),
            '--row',
            side,
            String(concurrency),
            mode,
            work,
            reserved === true ? 'reserved' : 'shared',
          ],
          {
            encoding: 'utf8',
            timeout: 120_000,
            maxBuffer: 16 * 2 ** 20,
          },
        )
      : spawnSync(
          binary!,
          [
            '-concurrency',
            String(concurrency),
            '-mode',
            mode,
            '-rate',
            String(steadyRate(concurrency)),
            '-duration',
            `${DURATION_MS}ms`,
            '-low',
            String(LOW),
          ],
          {
            encoding: 'utf8',
            timeout: 120_000,
            maxBuffer: 16 * 2 ** 20,
          },
        );
  if (run.error !== undefined || run.status !== 0)
    return `${label(contender)} row failed: ${run.error?.message ?? `exit ${run.status}: ${run.stderr.trim().split('\n').at(-1)}`}`;
  try {
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Row;
  } catch (error) {
    return `${label(contender)} row printed no JSON: ${String(error)}`;
  }
}

/** best / median / worst of `values`, formatted; `higherIsBetter` orders them. */
function spread(values: readonly number[], higherIsBetter: boolean, format: (n: number) => string): string {
  const sorted = [...values].sort((a, b) => (higherIsBetter ? b - a : a - b));
  if (sorted.length === 0) return 'n/a';
  return `${format(sorted[0]!)} / ${format(sorted[Math.floor(sorted.length / 2)]!)} / ${format(sorted.at(-1)!)}`;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');
const millis = (n: number): string => (n < 0 ? 'none' : `${n.toFixed(n < 10 ? 2 : 0)}`);

async function main(): Promise<void> {
  const go = buildGo('go-priorityqueue', 'priorityqueue-bench');
  const rows = new Map<string, Row[]>();
  const failures: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const mode of MODES) {
      for (const concurrency of CONCURRENCIES) {
        for (const contestant of CONTESTANTS) {
          if (contestant.side === 'controller-runtime' && !go.ok) continue;
          const row = spawnRow(contestant, go.ok ? go.binary : undefined, concurrency, mode);
          const id = `${label(contestant)} ${mode} ${concurrency}`;
          console.log(`round ${round + 1} ${id}: ${typeof row === 'string' ? row : JSON.stringify(row)}`);
          if (typeof row === 'string') failures.push(row);
          else rows.set(id, [...(rows.get(id) ?? []), row]);
        }
      }
    }
  }
  go.cleanup();
  const version = [...rows.values()].flat().find((row) => row.version !== undefined)?.version ?? 'not measured';
  const lines: string[] = [];
  for (const mode of MODES) {
    for (const concurrency of CONCURRENCIES) {
      for (const contestant of CONTESTANTS) {
        const measured = rows.get(`${label(contestant)} ${mode} ${concurrency}`) ?? [];
        const all = (pick: (row: Row) => number): number[] => measured.map(pick);
        const neverStarted = measured.length > 0 && measured.every((row) => row.lowStarted === 0);
        const firstLow = neverStarted
          ? `none in ${DURATION_MS} ms (unbounded)`
          : spread(
              all((r) => r.firstLowStartMs),
              false,
              millis,
            );
        const bound = neverStarted
          ? 'no low key started'
          : spread(
              all((r) => r.lowBoundRatio),
              false,
              (n) => n.toFixed(2),
            );
        lines.push(
          `| ${mode} | ${concurrency} | ${contestant.side}${contestant.reserved === true ? ` (reserved ${reservedSlots(concurrency)})` : ''} | ${WORK_NAMES[contestant.work]} | ${spread(
            all((r) => r.perSecond),
            true,
            count,
          )} | ${spread(
            all((r) => r.highP50Ms),
            false,
            millis,
          )} | ${spread(
            all((r) => r.highP99Ms),
            false,
            millis,
          )} | ${spread(
            all((r) => r.lowStarted),
            true,
            count,
          )} | ${firstLow} | ${bound} |`,
        );
      }
    }
  }
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(', ');
  const table = [
    "## queue: priorities against controller-runtime's priority queue",
    '',
    '`npm run bench -- queue` (`bench/queue/priority.ts`, which builds `bench/go-priorityqueue` and runs it).',
    `controller-runtime ${version} \`pkg/controller/priorityqueue\` against rxkube's \`reconcile\`, ${ROUNDS} rounds, each row in a fresh`,
    `process, the two alternating. Load average when the run ended: ${load} (anything else running on the machine`,
    'moves the figures); read them as best / median / worst of the rounds, and compare the two sides row by row.',
    '',
    `Workload: ${count(LOW)} keys preloaded at low priority (-100; 100 namespaces in list order), then high-priority keys (100)`,
    `for ${DURATION_MS / 1000} s; every reconcile takes 1 ms. **steady**: new high keys at a quarter of the nominal capacity`,
    '(concurrency / 1 ms, capped at 20,000/s). **saturating**: twice `concurrency` high keys, each added again when its run',
    'is done, so that high keys alone keep every worker busy. rxkube runs with `aging: { after: 1000, every: 4 }` (the',
    'default `after`, 30 s, is longer than a row) and its default fairness (by namespace); controller-runtime with its',
    'defaults, no metrics on either side. The plain-JS floor (`bench/queue/floor.ts`) is the least a priority queue in one',
    'Node thread does (dedup, one run per key, strict priority, bounded concurrency; no aging, fairness, clock or events):',
    'it shows what the runtime costs by itself. Each row starts 1 s after the last low key was added, so every low key',
    'has waited `after` and is overdue. Reconciles/s counts runs completed within the row; high wait is from the trigger',
    '(received from a producer thread, as watch events arrive) to the start; "low started" and "first low start" count the',
    'preloaded keys. The last column measures the aging bound: the largest `s / (i + 1 + D / every)` over the low keys that',
    "started, `s` the start's position among the row's starts (less those of high keys in held-back slots, which the",
    'bound does not count), `i` the number of low keys older than it, and',
    '`D = (every − 1) · (u − 1)` the starts rxkube may put an aging start off by, `u` the slots low keys may use (0 for the',
    'floor and controller-runtime); aging promises at most `every` (4). controller-runtime promises none: under the',
    'saturating stream no low key starts, however long the row.',
    '',
    "**Work.** Go's `time.Sleep` ends each run on its own, to the microsecond. In Node, `setTimeout(1)` ends runs on",
    "libuv's millisecond clock, in batches, so that a slot frees only at the next millisecond tick and a trigger that",
    'finds every slot busy waits for that tick: about half a millisecond, whatever the queue. A real reconcile ends as',
    'its I/O ends (an HTTP response), at any time. So the JavaScript queues also run with an I/O completion: a sleeper',
    "thread posts each run's end 1 ms after its start (`bench/queue/io-work.ts`), as a socket would deliver it. Read the",
    'latency of the queue itself from those rows.',
    '',
    '| stream | concurrency | queue | work | reconciles/s | high wait p50, ms | high wait p99, ms | low started | first low start, ms | aging bound s / (i + 1 + D / every), ≤ 4 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
    ...(failures.length === 0 ? [] : ['Failures:', '', ...failures.map((failure) => `- ${failure}`), '']),
    ...(go.ok ? [] : [`**controller-runtime not measured: ${go.note}.**`, '']),
  ].join('\n');
  const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, 'queue.md'), table);
  console.log(table);
}

const rowAt = process.argv.indexOf('--row');
if (rowAt >= 0) {
  const [side, concurrency, mode, work, slots] = process.argv.slice(rowAt + 1);
  const row = await runRow(
    side as 'rxkube' | 'floor',
    Number(concurrency),
    mode as Mode,
    work as Work,
    slots === 'reserved',
  );
  console.log(JSON.stringify(row));
  process.exit(0);
} else {
  await main();
}
