/**
 * The ordering guarantees of `reconcile` as properties over random schedules: the aging bound (in starts, whatever
 * the gate, timeouts, retries and requeues do; in time, for runs of bounded length), fairness across groups under a
 * flood of 10,000 keys, and the depth by priority. The other guarantees are checked with priorities, aging and
 * fairness groups in `reconcile.properties.spec.ts`.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { BehaviorSubject, Observable, VirtualTimeScheduler, mergeMap, of, throwError, timer } from 'rxjs';
import type { SchedulerAction } from 'rxjs';
import { HIGH_PRIORITY, LOW_PRIORITY, reconcile } from '../../../src/controller/index.js';
import type {
  ReconcileEvent,
  ReconcileMetrics,
  ReconcileQueueView,
  ReconcileResult,
  ReconcileTrigger,
} from '../../../src/controller/index.js';
import { settleLater } from '../helpers.js';

const priorities = fc.constantFrom(LOW_PRIORITY, 0, HIGH_PRIORITY, 7);
/** The size of a namespace that floods the queue. */
const FLOOD = 10_000;
const keys = fc.constantFrom('a', 'b', 'c', 'ns1/d', 'ns1/e', 'ns2/f', 'ns2/g', 'ns3/h');

interface Call {
  readonly kind: 'ok' | 'fail' | 'requeue';
  readonly duration: number;
  readonly sync: boolean;
  readonly promise: boolean;
  readonly retrigger: boolean;
  readonly requeueAfter: number;
  readonly priority: number | undefined;
}

interface Scenario {
  readonly triggers: readonly { readonly at: number; readonly key: string; readonly priority: number }[];
  readonly calls: readonly Call[];
  readonly concurrency: number;
  readonly after: number;
  readonly every: number;
  readonly fairness: boolean;
  readonly gateFlips: readonly number[];
  readonly timeout: number | undefined;
}

/** Every run of a key: where it started in the order of starts, when, and when its key entered the ready set. */
interface Run {
  readonly key: string;
  readonly index: number;
  readonly start: number;
  readonly readySince: number;
  readonly priority: number;
}

function scenarios(options: {
  gate: boolean;
  timeouts: boolean;
  maxDuration: number;
  maxTriggers?: number;
  minDuration?: number;
  sync?: boolean;
}): fc.Arbitrary<Scenario> {
  const maxLength = options.maxTriggers ?? 60;
  return fc.record({
    triggers: fc.array(fc.record({ at: fc.integer({ min: 0, max: 100 }), key: keys, priority: priorities }), {
      minLength: 1,
      maxLength,
    }),
    calls: fc.array(
      fc.record({
        kind: fc.constantFrom<Call['kind']>('ok', 'ok', 'ok', 'fail', 'requeue'),
        duration: fc.integer({ min: options.minDuration ?? 0, max: options.maxDuration }),
        sync: options.sync === false ? fc.constant(false) : fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
        promise: options.timeouts ? fc.boolean() : fc.constant(false),
        retrigger: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
        requeueAfter: fc.integer({ min: 0, max: 30 }),
        priority: fc.option(priorities, { nil: undefined }),
      }),
      { maxLength: maxLength + 20 },
    ),
    concurrency: fc.integer({ min: 1, max: 4 }),
    after: fc.integer({ min: 0, max: 40 }),
    every: fc.integer({ min: 1, max: 4 }),
    fairness: fc.boolean(),
    gateFlips: options.gate ? fc.array(fc.integer({ min: 0, max: 110 }), { maxLength: 6 }) : fc.constant([]),
    timeout: options.timeouts ? fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }) : fc.constant(undefined),
  });
}

/** Plays a scenario in virtual time; returns every run, in the order they started. */
function play(scenario: Scenario): { runs: Run[]; events: ReconcileEvent[] } {
  return playOn(new VirtualTimeScheduler(), scenario);
}

/** `play` on a scheduler the caller may have scheduled probes on, with a metrics hook if given. */
function playOn(
  scheduler: VirtualTimeScheduler,
  scenario: Scenario,
  metrics?: ReconcileMetrics,
): { runs: Run[]; events: ReconcileEvent[] } {
  const events: ReconcileEvent[] = [];
  let calls = 0;
  let feed: ((trigger: ReconcileTrigger) => void) | undefined;
  const fn = ({ key, priority }: { key: string; priority: number }): ReconcileResult => {
    const call = scenario.calls[calls++] ?? {
      kind: 'ok',
      duration: 1,
      sync: false,
      promise: false,
      retrigger: false,
      requeueAfter: 0,
      priority: undefined,
    };
    if (call.retrigger) feed?.({ key, priority });
    const result = call.kind === 'requeue' ? { requeueAfter: call.requeueAfter, priority: call.priority } : undefined;
    if (call.sync) {
      if (call.kind === 'fail') throw new Error('failed');
      return result;
    }
    if (call.promise)
      return settleLater(
        scheduler,
        call.duration,
        call.kind === 'fail' ? { error: new Error('failed') } : { value: result },
      );
    return timer(call.duration, scheduler).pipe(
      mergeMap(() => (call.kind === 'fail' ? throwError(() => new Error('failed')) : of(result))),
    );
  };
  const source = new Observable<ReconcileTrigger>((subscriber) => {
    feed = (trigger) => subscriber.next(trigger);
    for (const { at, key, priority } of [...scenario.triggers].sort((x, y) => x.at - y.at)) {
      scheduler.schedule(() => subscriber.next({ key, priority }), at);
    }
    scheduler.schedule(() => {
      feed = undefined;
      subscriber.complete();
    }, 120);
  });
  const gate = new BehaviorSubject(true);
  for (const at of [...scenario.gateFlips].sort((x, y) => x - y)) scheduler.schedule(() => gate.next(!gate.value), at);
  scheduler.schedule(() => gate.next(true), 115);
  source
    .pipe(
      reconcile(fn, {
        scheduler,
        gate,
        concurrency: scenario.concurrency,
        timeout: scenario.timeout,
        globalRateLimiter: false,
        metrics,
        aging: { after: scenario.after, every: scenario.every },
        fairness: scenario.fairness ? undefined : () => '',
      }),
    )
    .subscribe((event) => events.push(event));
  scheduler.flush();
  return { runs: runsOf(events), events };
}

/**
 * The runs of a trace. A key enters the ready set when its wait starts (`time - queueWaitMs`), or, when it was
 * triggered during its previous run, when that run let go of the key (its `succeeded` or `failed` event, or the
 * `released` of a held one).
 */
function runsOf(events: readonly ReconcileEvent[]): Run[] {
  const freed = new Map<string, number>();
  const runs: Run[] = [];
  for (const event of events) {
    if (event.type === 'started') {
      const readySince = Math.max(event.time - event.queueWaitMs, freed.get(event.key) ?? Number.NEGATIVE_INFINITY);
      runs.push({ key: event.key, index: runs.length, start: event.time, readySince, priority: Number.NaN });
    } else if (
      event.type === 'succeeded' ||
      event.type === 'released' ||
      (event.type === 'failed' && event.held !== true)
    ) {
      freed.set(event.key, event.time);
    }
  }
  return runs;
}

/** The starts aging may put off with `slots` slots: `(every - 1) · (slots - 1)`, the bound's extra term. */
function deferredStarts(every: number, slots: number): number {
  return (every - 1) * (slots - 1);
}

/**
 * The aging bound of a run, in starts: counting from the first start at or after the moment the key has waited
 * `after`, its own start is at most the `(n + 1) · every + (every - 1) · (slots - 1)`-th, where `n` counts the runs
 * of keys that entered the ready set no later than it and started in that window, and `slots` the slots the starts
 * share (aging may put off its starts for one round of them). Returns a description of the first run that breaks it.
 */
function agingViolation(runs: readonly Run[], after: number, every: number, slots = 1): string | undefined {
  const deferred = deferredStarts(every, slots);
  for (const run of runs) {
    const overdue = run.readySince + after;
    const window = runs.filter((other) => other.start >= overdue && other.index <= run.index);
    if (window.length === 0) continue;
    const older = window.filter((other) => other !== run && other.readySince <= run.readySince).length;
    if (window.length > (older + 1) * every + deferred) {
      return `${run.key} ready at ${run.readySince} started at ${run.start}: ${window.length} starts since ${overdue} > (${older} + 1) · ${every} + ${deferred}`;
    }
  }
  return undefined;
}

describe('reconcile: ordering properties (priorities, aging, fairness)', () => {
  it('starts every key within (n + 1) · every + (every − 1) · (c − 1) starts of its becoming overdue, n the keys ready before it, c the concurrency (any schedule, gate, timeout)', () => {
    fc.assert(
      fc.property(scenarios({ gate: true, timeouts: true, maxDuration: 12 }), (scenario) => {
        const { runs } = play(scenario);
        expect(agingViolation(runs, scenario.after, scenario.every, scenario.concurrency)).to.equal(undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('starts every key by readySince + after + ⌈((n + 1) · every + (every − 1) · (c − 1)) / c⌉ · d, c the concurrency, for runs that hold their slot at most d', () => {
    const maxDuration = 10;
    // Up to 150 triggers in 100 ms of runs 10 ms long: the queue is overloaded most of the time.
    fc.assert(
      fc.property(
        scenarios({
          gate: false,
          timeouts: false,
          maxDuration,
          minDuration: maxDuration,
          sync: false,
          maxTriggers: 150,
        }),
        (scenario) => {
          const { runs } = play(scenario);
          for (const run of runs) {
            const overdue = run.readySince + scenario.after;
            if (run.start <= overdue) continue;
            const older = runs.filter(
              (other) =>
                other !== run &&
                other.index < run.index &&
                other.start >= overdue &&
                other.readySince <= run.readySince,
            ).length;
            const { every, concurrency } = scenario;
            const starts = (older + 1) * every + deferredStarts(every, concurrency);
            const bound = overdue + Math.ceil(starts / concurrency) * maxDuration;
            expect(run.start, `${run.key} ready at ${run.readySince}, ${older} older`).to.be.at.most(bound);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('detects a run that waits past its bound (the checker itself can fail)', () => {
    const run = (key: string, index: number, start: number, readySince: number): Run => ({
      key,
      index,
      start,
      readySince,
      priority: 0,
    });
    // k became ready at 0 and was overdue at 10; three younger keys started before it from then on.
    const runs = [run('x', 0, 10, 5), run('y', 1, 11, 5), run('z', 2, 12, 5), run('k', 3, 13, 0)];
    expect(agingViolation(runs, 10, 2)).to.match(
      /^k ready at 0 started at 13: 4 starts since 10 > \(0 \+ 1\) · 2 \+ 0$/,
    );
    expect(agingViolation(runs, 10, 4)).to.equal(undefined);
    // With more slots aging may put starts off for a round of them: (every - 1) · (slots - 1) more.
    expect(agingViolation(runs, 10, 2, 2)).to.match(/> \(0 \+ 1\) · 2 \+ 1$/);
    expect(agingViolation(runs, 10, 2, 3)).to.equal(undefined);
  });

  it('never starts a lower priority while a higher one is ready and no key is overdue, and runs each at its coalesced priority', () => {
    fc.assert(
      fc.property(scenarios({ gate: false, timeouts: false, maxDuration: 8, maxTriggers: 150 }), (scenario) => {
        // With `after` beyond the whole schedule nothing is ever overdue: the order is by priority alone.
        const { log } = playLogged({ ...scenario, after: 1_000_000 });
        expect(priorityViolation(log)).to.equal(undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('serves groups round-robin: after a burst of 10,000 keys of one namespace, the i-th key of another starts among the first (i + 1) · G', () => {
    const quiet = fc.array(
      fc.record({
        namespace: fc.constantFrom('q1', 'q2', 'q3', 'q4', 'q5'),
        position: fc.integer({ min: 0, max: FLOOD }),
      }),
      {
        minLength: 1,
        maxLength: 8,
      },
    );
    fc.assert(
      fc.property(quiet, fc.integer({ min: 1, max: 8 }), (inserts, concurrency) => {
        const order = Array.from({ length: FLOOD }, (_, i) => `flood/k${i}`);
        // Insert from the back, so that earlier positions stay where they were drawn.
        const named = inserts.map(({ namespace }, i) => `${namespace}/x${i}`);
        [...inserts]
          .map((insert, i) => ({ ...insert, key: named[i]! }))
          .sort((a, b) => b.position - a.position)
          .forEach(({ position, key }) => order.splice(position, 0, key));
        const started: string[] = [];
        const gate = new BehaviorSubject(false);
        const triggers = new Observable<string>((subscriber) => {
          for (const key of order) subscriber.next(key);
          gate.next(true);
        });
        triggers.pipe(reconcile(({ key }) => void started.push(key), { gate, concurrency })).subscribe();
        const groups = new Set(order.map((key) => key.split('/')[0]));
        const seen = new Map<string, number>();
        for (const key of order) {
          const group = key.split('/')[0]!;
          const i = seen.get(group) ?? 0;
          seen.set(group, i + 1);
          if (group !== 'flood') expect(started.indexOf(key), key).to.be.lessThan((i + 1) * groups.size);
        }
        expect(started).to.have.length(order.length);
      }),
      { numRuns: 20 },
    );
  });

  it('starts a live key of a quiet namespace within one run per other busy namespace, while another floods 10,000 keys', () => {
    const arrivals = fc.array(
      fc.record({ at: fc.integer({ min: 0, max: 9_000 }), namespace: fc.constantFrom('q1', 'q2', 'q3') }),
      { maxLength: 10 },
    );
    fc.assert(
      fc.property(arrivals, fc.integer({ min: 1, max: 3 }), (quiet, floodEvery) => {
        const scheduler = new VirtualTimeScheduler();
        const log: string[] = [];
        const metrics: ReconcileMetrics = {
          added: (key) => void log.push(`+${key}`),
          started: (key) => void log.push(`>${key}`),
        };
        const triggers = new Observable<string>((subscriber) => {
          // The flood: 10,000 distinct keys, three every `floodEvery` ms, faster than one slot serves them. (One action
          // that schedules itself again: the virtual scheduler sorts its actions on every schedule.)
          scheduler.schedule(
            function (this: SchedulerAction<number>, from = 0) {
              for (let i = from; i < Math.min(from + 3, FLOOD); i += 1) subscriber.next(`flood/k${i}`);
              if (from + 3 < FLOOD) this.schedule(from + 3, floodEvery);
            },
            0,
            0,
          );
          quiet.forEach(({ at, namespace }, i) => scheduler.schedule(() => subscriber.next(`${namespace}/x${i}`), at));
        });
        triggers.pipe(reconcile(() => timer(1, scheduler), { scheduler, metrics })).subscribe();
        scheduler.flush();
        quiet.forEach(({ namespace }, i) => {
          const key = `${namespace}/x${i}`;
          const added = log.indexOf(`+${key}`);
          const startedAt = log.indexOf(`>${key}`, added);
          const between = log.slice(added + 1, startedAt).filter((entry) => entry.startsWith('>')).length;
          // Keys of its own namespace that were waiting when it came are served first, one per round.
          const ahead = quiet.filter((other, j) => {
            if (j === i || other.namespace !== namespace) return false;
            const otherAdded = log.indexOf(`+${namespace}/x${j}`);
            return otherAdded >= 0 && otherAdded < added && log.indexOf(`>${namespace}/x${j}`, otherAdded) > added;
          }).length;
          // Per round, at most one start for each other namespace with keys ready (the flood and the other two
          // quiet ones), and one for its own namespace's key ahead of it.
          expect(between, key).to.be.at.most(ahead + (ahead + 1) * 3);
        });
      }),
      { numRuns: 10 },
    );
  });

  it('splits the depth by priority without losing or adding a key, under any schedule', () => {
    fc.assert(
      fc.property(
        scenarios({ gate: true, timeouts: true, maxDuration: 12 }),
        fc.array(fc.integer({ min: 0, max: 130 }), { maxLength: 10 }),
        (scenario, probes) => {
          let view: ReconcileQueueView | undefined;
          const mismatches: string[] = [];
          const scheduler = new VirtualTimeScheduler();
          for (const at of probes) {
            scheduler.schedule(() => {
              if (view === undefined) return;
              const split = [...view.depthByPriority.values()].reduce((sum, keys) => sum + keys, 0);
              if (split !== view.depth || [...view.depthByPriority.values()].some((keys) => keys <= 0))
                mismatches.push(`${at}: ${split} vs ${view.depth}`);
            }, at);
          }
          playOn(scheduler, scenario, { opened: (queue) => void (view = queue) });
          expect(mismatches).to.deep.equal([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('detects a start below a ready priority (the checker itself can fail)', () => {
    expect(
      priorityViolation([
        { type: 'trigger', key: 'a', priority: 0 },
        { type: 'added', key: 'a', priority: 0 },
        { type: 'trigger', key: 'b', priority: 5 },
        { type: 'added', key: 'b', priority: 5 },
        { type: 'started', key: 'a', priority: 0 },
      ]),
    ).to.match(/a started at 0 while b waits at 5/);
  });
});

/** What the operator was told and what it told its metrics hook, in order. */
type Entry =
  | { readonly type: 'trigger' | 'added' | 'started'; readonly key: string; readonly priority: number }
  | { readonly type: 'done'; readonly key: string }
  | {
      readonly type: 'outcome';
      readonly key: string;
      readonly next: 'retrying' | 'requeued' | undefined;
      readonly priority: number;
    };

/** `play`, logging the triggers as the source emits them and the metrics hook's calls (no gate, no timeout). */
function playLogged(scenario: Scenario): { log: Entry[] } {
  const log: Entry[] = [];
  const scheduler = new VirtualTimeScheduler();
  let calls = 0;
  let feed: ((trigger: ReconcileTrigger) => void) | undefined;
  /** The priority each key's running run asked its requeue at, if it did. */
  const asked = new Map<string, number | undefined>();
  const fn = ({ key, priority }: { key: string; priority: number }): ReconcileResult => {
    const call = scenario.calls[calls++] ?? {
      kind: 'ok',
      duration: 1,
      sync: false,
      promise: false,
      retrigger: false,
      requeueAfter: 0,
      priority: undefined,
    };
    asked.set(key, call.kind === 'requeue' ? (call.priority ?? priority) : priority);
    if (call.retrigger) feed?.({ key, priority });
    const result = call.kind === 'requeue' ? { requeueAfter: call.requeueAfter, priority: call.priority } : undefined;
    if (call.sync) {
      if (call.kind === 'fail') throw new Error('failed');
      return result;
    }
    return timer(call.duration, scheduler).pipe(
      mergeMap(() => (call.kind === 'fail' ? throwError(() => new Error('failed')) : of(result))),
    );
  };
  const source = new Observable<ReconcileTrigger>((subscriber) => {
    feed = (trigger) => {
      log.push({ type: 'trigger', key: trigger.key, priority: trigger.priority ?? 0 });
      subscriber.next(trigger);
    };
    for (const { at, key, priority } of [...scenario.triggers].sort((x, y) => x.at - y.at))
      scheduler.schedule(() => feed?.({ key, priority }), at);
    scheduler.schedule(() => {
      feed = undefined;
      subscriber.complete();
    }, 120);
  });
  const metrics: ReconcileMetrics = {
    added: (key, priority) => void log.push({ type: 'added', key, priority }),
    started: (key, _wait, priority) => void log.push({ type: 'started', key, priority }),
    done: (key) => void log.push({ type: 'done', key }),
    outcome: (run, next) => {
      const type = next?.type === 'retrying' || next?.type === 'requeued' ? next.type : undefined;
      log.push({ type: 'outcome', key: run.key, next: type, priority: asked.get(run.key)! });
    },
  };
  source
    .pipe(
      reconcile(fn, {
        scheduler,
        concurrency: scenario.concurrency,
        globalRateLimiter: false,
        metrics,
        aging: { after: scenario.after, every: scenario.every },
        fairness: scenario.fairness ? undefined : () => '',
      }),
    )
    .subscribe();
  scheduler.flush();
  return { log };
}

/**
 * Replays a log against a model of the ready keys and their pending priorities, and returns the first start that
 * took a key below the highest ready priority, or at another priority than the model's.
 *
 * The model: a trigger raises the priority of a ready or dirty key; `added` makes a key ready (or, while it runs,
 * dirty) at a priority; `done` makes a dirty key ready; a retry or requeue scheduled for a key that is ready again
 * (it was dirty) raises it to the retry's or requeue's priority.
 */
function priorityViolation(log: readonly Entry[]): string | undefined {
  const ready = new Map<string, number>();
  const dirty = new Map<string, number>();
  const running = new Set<string>();
  for (const entry of log) {
    switch (entry.type) {
      case 'trigger':
        if (ready.has(entry.key)) ready.set(entry.key, Math.max(ready.get(entry.key)!, entry.priority));
        else if (dirty.has(entry.key)) dirty.set(entry.key, Math.max(dirty.get(entry.key)!, entry.priority));
        break;
      case 'added':
        (running.has(entry.key) ? dirty : ready).set(entry.key, entry.priority);
        break;
      case 'started': {
        const top = Math.max(...ready.values());
        if (entry.priority < top) {
          const waiting = [...ready].find(([, priority]) => priority === top)![0];
          return `${entry.key} started at ${entry.priority} while ${waiting} waits at ${top}`;
        }
        if (ready.get(entry.key) !== entry.priority)
          return `${entry.key} started at ${entry.priority}, pending at ${ready.get(entry.key)}`;
        ready.delete(entry.key);
        running.add(entry.key);
        break;
      }
      case 'done':
        running.delete(entry.key);
        if (dirty.has(entry.key)) {
          ready.set(entry.key, dirty.get(entry.key)!);
          dirty.delete(entry.key);
        }
        break;
      case 'outcome':
        if (entry.next !== undefined && ready.has(entry.key))
          ready.set(entry.key, Math.max(ready.get(entry.key)!, entry.priority));
        break;
    }
  }
  return undefined;
}
