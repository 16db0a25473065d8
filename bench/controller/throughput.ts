/**
 * `npx tsx bench/controller/throughput.ts`: throughput of the reconcile operator against a hand-written dedup queue
 * (the floor) in the same process and against client-go's workqueue (`bench/go`, built and run by this script),
 * plus trigger-to-start latency at a steady 5k triggers/s in real time for rxkube and client-go.
 *
 * Writes `bench/results/controller.md` and prints it. Absolute numbers on a shared machine are noise; read the
 * ratios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { BehaviorSubject, Observable, Subject } from 'rxjs';
import type { Subscriber } from 'rxjs';
import { reconcile } from '../../src/controller/index.js';
import { runClientGo } from './client-go.js';
import type { ClientGoOutcome } from './client-go.js';
import { DedupQueue } from './floor.js';

const TRIGGERS = 1_000_000;
const KEYS = 10_000;
const CONCURRENCIES = [1, 8, 64];
/** Timed runs per contender and row; the fastest counts. */
const ROUNDS = 4;

const keys = Array.from({ length: KEYS }, (_, i) => `default/object-${i}`);
/** A fixed pseudo-random trigger order (LCG), the same for every contender. */
const order = new Uint16Array(TRIGGERS);
for (let i = 0, seed = 12345; i < TRIGGERS; i += 1) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  order[i] = seed % KEYS;
}

interface Measured {
  readonly seconds: number;
  readonly reconciles: number;
  /** Completions the consumer saw: `succeeded` events for rxkube, `onDone` calls for the floor. */
  readonly completions: number;
}

/**
 * Feeds every trigger through `reconcile` with a no-op synchronous function; `gated` holds them until the end.
 * `viaSubject` pushes through an rxjs `Subject`; otherwise through a bare `Observable` whose subscriber is called
 * directly, which is what one operator hop upstream (say `informer.events$.pipe(toKeys())`) costs.
 */
function measureOperator(concurrency: number, gated: boolean, viaSubject: boolean, triggers = TRIGGERS): Measured {
  let reconciles = 0;
  let completions = 0;
  const subject = new Subject<string>();
  let push: Subscriber<string> | undefined;
  const input = viaSubject ? subject : new Observable<string>((subscriber) => void (push = subscriber));
  const gate = new BehaviorSubject(!gated);
  const subscription = input
    .pipe(reconcile(() => void (reconciles += 1), { concurrency, gate, globalRateLimiter: false }))
    .subscribe((event) => {
      if (event.type === 'succeeded') completions += 1;
    });
  const sink = push ?? subject;
  const start = performance.now();
  for (let i = 0; i < triggers; i += 1) sink.next(keys[order[i]!]!);
  gate.next(true);
  const seconds = (performance.now() - start) / 1000;
  subscription.unsubscribe();
  return { seconds, reconciles, completions };
}

/**
 * The same workload through the floor queue, called directly or (`viaSubject`) behind the same rxjs `Subject` the
 * operator is fed through, which separates the cost of rxjs plumbing from the cost of the operator itself.
 */
function measureFloor(
  concurrency: number,
  gated: boolean,
  viaSubject: boolean,
  triggers = TRIGGERS,
  clock?: () => number,
): Measured {
  let reconciles = 0;
  let completions = 0;
  const queue = new DedupQueue(
    concurrency,
    () => void (reconciles += 1),
    () => void (completions += 1),
    clock,
  );
  queue.paused = gated;
  const input = new Subject<string>();
  const subscription = input.subscribe((key) => queue.add(key));
  const start = performance.now();
  if (viaSubject) for (let i = 0; i < triggers; i += 1) input.next(keys[order[i]!]!);
  else for (let i = 0; i < triggers; i += 1) queue.add(keys[order[i]!]!);
  queue.resume();
  const seconds = (performance.now() - start) / 1000;
  subscription.unsubscribe();
  return { seconds, reconciles, completions };
}

/**
 * Runs every contender `rounds` times, interleaved (a, b, c, d, a, b, …), and keeps each one's fastest run, so a
 * burst of load from other processes on the shared machine hits all contenders alike rather than one of them.
 */
function bestInterleaved(contenders: readonly (() => Measured)[], rounds = ROUNDS): Measured[] {
  const bests: (Measured | undefined)[] = contenders.map(() => undefined);
  for (let round = 0; round < rounds; round += 1) {
    contenders.forEach((run, i) => {
      const next = run();
      const current = bests[i];
      if (current === undefined || next.seconds < current.seconds) bests[i] = next;
    });
  }
  return bests as Measured[];
}

/** Trigger-to-start latency percentiles at `rate` triggers/s for `seconds`, in real time on asyncScheduler. */
async function measureLatency(
  rate: number,
  seconds: number,
  asyncFn: boolean,
): Promise<{ p50: number; p99: number; samples: number }> {
  const input = new Subject<string>();
  const triggeredAt = new Map<string, number>();
  const latencies: number[] = [];
  const subscription = input
    .pipe(
      reconcile(({ key }) => {
        const at = triggeredAt.get(key);
        if (at !== undefined) latencies.push(performance.now() - at);
        triggeredAt.delete(key);
        return asyncFn ? Promise.resolve() : undefined;
      }),
    )
    .subscribe(() => {});
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((done) => {
    const tick = (): void => {
      const elapsed = (performance.now() - start) / 1000;
      if (elapsed >= seconds) return done();
      for (const due = Math.floor(elapsed * rate); sent < due; sent += 1) {
        const key = keys[order[sent % TRIGGERS]!]!;
        if (!triggeredAt.has(key)) triggeredAt.set(key, performance.now());
        input.next(key);
      }
      setImmediate(tick);
    };
    tick();
  });
  subscription.unsubscribe();
  latencies.sort((a, b) => a - b);
  const pick = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { p50: pick(0.5), p99: pick(0.99), samples: latencies.length };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => `${n.toFixed(3)} ms`;
const ratio = (a: number, b: number): string => (a / b).toFixed(2);

/** The client-go row for `workers`, if the Go benchmark ran. */
function clientGoRow(
  goResult: ClientGoOutcome,
  workers: number,
): { triggers: number; reconciles: number; processed: number } | undefined {
  if (!goResult.ok) return undefined;
  const row = goResult.report.throughput.find((entry) => entry.workers === workers);
  return (
    row && { triggers: row.addsPerSecondIncludingDrain, reconciles: row.processedPerSecond, processed: row.processed }
  );
}

async function main(): Promise<void> {
  for (const gated of [false, true]) {
    // Warm up every path before timing, so the first timed row is not the one that pays for the JIT.
    for (const viaSubject of [false, true]) {
      measureOperator(8, gated, viaSubject);
      measureFloor(8, gated, viaSubject);
    }
  }
  const throughputRows: string[] = [];
  const goRows: string[] = [];
  const measured: {
    gated: boolean;
    concurrency: number;
    rx: Measured;
    rxSubject: Measured;
    floor: Measured;
    floorSubject: Measured;
    floorClock: Measured;
  }[] = [];
  for (const gated of [false, true]) {
    for (const concurrency of CONCURRENCIES) {
      const [rx, rxSubject, floor, floorSubject, floorClock] = bestInterleaved([
        () => measureOperator(concurrency, gated, false),
        () => measureOperator(concurrency, gated, true),
        () => measureFloor(concurrency, gated, false),
        () => measureFloor(concurrency, gated, true),
        () => measureFloor(concurrency, gated, false, TRIGGERS, Date.now),
      ]) as [Measured, Measured, Measured, Measured, Measured];
      for (const other of [rxSubject, floor, floorSubject, floorClock]) {
        if (
          rx.reconciles !== other.reconciles ||
          rx.completions !== other.completions ||
          rx.reconciles !== rx.completions
        ) {
          throw new Error(
            `rxkube ran ${rx.reconciles}/${rx.completions} but the floor ${other.reconciles}/${other.completions} (concurrency ${concurrency})`,
          );
        }
      }
      measured.push({ gated, concurrency, rx, rxSubject, floor, floorSubject, floorClock });
    }
  }
  const latency = await measureLatency(5000, 2.5, false);
  const asyncLatency = await measureLatency(5000, 2.5, true);
  // The Go program runs after the JS measurements so that the two never compete for the two cores.
  const goResult = runClientGo();

  const clockRows: string[] = [];
  for (const { gated, concurrency, rx, rxSubject, floor, floorSubject, floorClock } of measured) {
    if (!gated) {
      clockRows.push(
        `| ${concurrency} | ${fmt(TRIGGERS / floor.seconds)} | ${fmt(TRIGGERS / floorClock.seconds)} | ${fmt(TRIGGERS / rx.seconds)} | ${ratio(floor.seconds, floorClock.seconds)} | **${ratio(floor.seconds, rx.seconds)}** | ${ratio(floorClock.seconds, rx.seconds)} |`,
      );
    }
    throughputRows.push(
      `| ${gated ? 'burst, gate closed then opened' : 'streaming, key idle on arrival'} | ${concurrency} | ${fmt(TRIGGERS / rx.seconds)} | ${fmt(rx.reconciles / rx.seconds)} | ${fmt(TRIGGERS / floor.seconds)} | **${ratio(floor.seconds, rx.seconds)}** | ${fmt(TRIGGERS / rxSubject.seconds)} | ${fmt(TRIGGERS / floorSubject.seconds)} | ${ratio(floorSubject.seconds, rxSubject.seconds)} | ${ratio(floor.seconds, rxSubject.seconds)} |`,
    );
    if (!gated) {
      const go = clientGoRow(goResult, concurrency);
      goRows.push(
        go === undefined
          ? `| ${concurrency} | ${fmt(TRIGGERS / rx.seconds)} | ${fmt(rx.reconciles / rx.seconds)} | n/a | n/a | n/a | n/a | n/a |`
          : `| ${concurrency} | ${fmt(TRIGGERS / rx.seconds)} | ${fmt(rx.reconciles / rx.seconds)} | ${fmt(go.triggers)} | ${fmt(go.reconciles)} | ${fmt(go.processed)} | **${ratio(TRIGGERS / rx.seconds, go.triggers)}** | ${ratio(rx.reconciles / rx.seconds, go.reconciles)} |`,
      );
    }
  }
  const goLatency = goResult.ok ? goResult.report.latency : undefined;
  const meets = (p99: number): string => (p99 < 5 ? 'yes' : 'NO');
  const goNote = goResult.ok
    ? `client-go ${goResult.report.clientGo} (${goResult.report.goVersion}, GOMAXPROCS ${goResult.report.gomaxprocs}), built from \`bench/go\` and run by this script after the JS measurements.`
    : `**client-go not measured in this run: ${goResult.note}.**`;
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(', ');
  const table = [
    '## controller: reconcile operator throughput',
    '',
    `Load average when the run ended: ${load} (other work on the machine skews every figure; compare ratios).`,
    '',
    '`npx tsx bench/controller/throughput.ts`. 1,000,000 triggers over 10,000 distinct keys, no-op synchronous',
    "reconcile, best of 4 interleaved runs per contender. rxkube's consumer counts `succeeded` events, the floor",
    'counts completion callbacks, and the script checks that both ran the same number of reconciles and completions.',
    '',
    '### rxkube against the JS floor',
    '',
    'The floor is a minimal hand-written dedup queue (`bench/controller/floor.ts`): dedup, one run per key at a time,',
    'and a completion callback per run, which is the least any user of a queue needs. rxkube additionally reads the',
    "clock (when a key's wait starts and when a run ends) and emits two ReconcileEvents (`started`, `succeeded`) per",
    'run, which its guarantees require.',
    '',
    'Each contender gets its input two ways. **Cheapest input (headline, "rxkube / floor")**: the floor is called',
    'directly, rxkube is fed by a bare `Observable` whose subscriber is called directly (the cost of the one operator',
    'hop, such as `toKeys()`, that always sits in front of it). This charges rxkube for being an operator but not for',
    "the benchmark's choice of producer. **Same Subject**: both are fed through one rxjs `Subject`, as a hand-written",
    'queue in an rxjs application would be; `Subject.next` alone costs about 100 ns per value here, which compresses',
    'the ratio. The last column is the harshest mix (rxkube behind a Subject, floor called directly), for reference.',
    'In the streaming rows each trigger finds its key idle and runs at once; in the burst rows the gate holds all',
    'triggers, which coalesce to one run per key, then opens.',
    '',
    '| workload | concurrency | rxkube triggers/s | rxkube reconciles/s | floor triggers/s | rxkube / floor | rxkube behind a Subject, triggers/s | floor behind a Subject, triggers/s | same Subject: rxkube / floor | rxkube behind a Subject / floor direct |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...throughputRows,
    '',
    '### How much of the streaming gap is the clock',
    '',
    "In a streaming run rxkube reads the scheduler's clock twice (`Date.now()` on `asyncScheduler`: when the key's wait",
    'starts, which is also when it starts, and when the run ends), for the `time`, `queueWaitMs` and `durationMs` its',
    'events carry. The floor reads none. Here the floor is measured once more reading `Date.now()` at the same two',
    'points (and nothing else changed), interleaved with the rows above, to show what those reads cost by themselves.',
    '',
    '| concurrency | floor triggers/s | floor reading the clock like rxkube, triggers/s | rxkube triggers/s | floor with clock ÷ floor | rxkube / floor | rxkube / floor with clock |',
    '|---|---|---|---|---|---|---|',
    ...clockRows,
    '',
    '### rxkube against client-go',
    '',
    goNote,
    'client-go workload (`bench/go/README.md`): one producer goroutine `Add`s the same 1M triggers over 10k keys while',
    '`concurrency` worker goroutines `Get`/`Forget`/`Done` in parallel; triggers/s is 1M / time until every worker',
    'returned. Its consumers run concurrently with the producer, so it coalesces some triggers (processed < 1M) where',
    'rxkube, single-threaded, runs each streaming trigger at once (1M reconciles). So triggers/s is the like-for-like',
    'figure (same input, every trigger served), and reconciles/s mostly shows how much each side coalesced. rxkube',
    'figures are the streaming rows above (bare `Observable` input).',
    '',
    '| concurrency | rxkube triggers/s | rxkube reconciles/s | client-go triggers/s | client-go reconciles/s | client-go processed | rxkube / client-go, triggers/s | rxkube / client-go, reconciles/s |',
    '|---|---|---|---|---|---|---|---|',
    ...goRows,
    '',
    '### Latency from trigger to reconcile start at 5,000 triggers/s',
    '',
    'rxkube: 2.5 s per row on `asyncScheduler` in real time, concurrency 1, from the first trigger of a waiting key to',
    'its start. client-go: 15,000 distinct keys at a paced 5,000 `Add`/s, one worker, `Add` to `Get` returning.',
    'Target: p99 < 5 ms.',
    '',
    '| implementation | p50 | p99 | samples | p99 < 5 ms |',
    '|---|---|---|---|---|',
    `| rxkube, no-op synchronous reconcile | ${ms(latency.p50)} | ${ms(latency.p99)} | ${fmt(latency.samples)} | ${meets(latency.p99)} |`,
    `| rxkube, no-op reconcile returning a resolved Promise | ${ms(asyncLatency.p50)} | ${ms(asyncLatency.p99)} | ${fmt(asyncLatency.samples)} | ${meets(asyncLatency.p99)} |`,
    goLatency === undefined
      ? '| client-go workqueue | n/a | n/a | n/a | n/a |'
      : `| client-go workqueue | ${ms(goLatency.p50Micros / 1000)} | ${ms(goLatency.p99Micros / 1000)} | ${fmt(goLatency.received)} | ${meets(goLatency.p99Micros / 1000)} |`,
    '',
  ].join('\n');
  const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, 'controller.md'), table);
  console.log(table);
}

await main();
