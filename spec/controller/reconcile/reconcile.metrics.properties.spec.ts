/**
 * The metrics hook tells the operator's truth, under random schedules: its depth is the number of keys waiting to
 * run, its adds minus its starts are that depth, and its workers and unfinished work are the runs in flight.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { BehaviorSubject, Observable, Subject, VirtualTimeScheduler, mergeMap, of, throwError, timer } from 'rxjs';
import { TerminalError, reconcile } from '../../../src/controller/index.js';
import type {
  ReconcileEvent,
  ReconcileMetrics,
  ReconcileQueueView,
  ReconcileResult,
} from '../../../src/controller/index.js';
import { settleLater } from '../helpers.js';

/** What the n-th call of the reconcile function does. */
interface Step {
  readonly kind: 'ok' | 'fail' | 'terminal' | 'requeue';
  readonly duration: number;
  readonly after: number;
  readonly sync: boolean;
  readonly promise: boolean;
  /** Trigger the same key again from inside the reconcile function (it is then running: dirty). */
  readonly retrigger: boolean;
}

interface Scenario {
  readonly triggers: readonly { readonly at: number; readonly key: string }[];
  readonly steps: readonly Step[];
  readonly concurrency: number;
  readonly maxRetries: number | undefined;
  readonly gateFlips: readonly number[];
  readonly timeout: number | undefined;
  readonly stopAt: number | undefined;
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  triggers: fc.array(fc.record({ at: fc.integer({ min: 0, max: 80 }), key: fc.constantFrom('a', 'b', 'c', 'd') }), {
    minLength: 1,
    maxLength: 40,
  }),
  steps: fc.array(
    fc.record({
      kind: fc.constantFrom<Step['kind']>('ok', 'ok', 'fail', 'terminal', 'requeue'),
      duration: fc.integer({ min: 0, max: 15 }),
      after: fc.integer({ min: 0, max: 30 }),
      sync: fc.boolean(),
      promise: fc.boolean(),
      retrigger: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    }),
    { maxLength: 60 },
  ),
  concurrency: fc.integer({ min: 1, max: 4 }),
  maxRetries: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  gateFlips: fc.array(fc.integer({ min: 0, max: 90 }), { maxLength: 6 }),
  timeout: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
  stopAt: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
});

/**
 * What the spec knows of one key from its own triggers and the operator's events (never from the hook): whether a
 * run holds it, and what makes it due again.
 */
interface KeyTrack {
  running: boolean;
  startedAt: number;
  /** Triggered since its last start (a running key: dirty). */
  triggered: boolean;
  /** Its last run was interrupted by the gate closing: ready again once it no longer runs. */
  restored: boolean;
  /** Its last run was a held Promise interrupted by the gate closing: restored when released. */
  restoreOnRelease: boolean;
  /** When its retry or requeue is due. */
  dueAt: number | undefined;
}

/**
 * Keys waiting to run at `now`, as client-go counts them: not running and due (triggered, restored, or its retry
 * or requeue time passed), or running and triggered again.
 */
function waitingKeys(keys: Map<string, KeyTrack>, now: number): number {
  let waiting = 0;
  for (const key of keys.values()) {
    const due = key.triggered || key.restored || (key.dueAt !== undefined && key.dueAt <= now);
    if (key.running ? key.triggered : due) waiting += 1;
  }
  return waiting;
}

function track(keys: Map<string, KeyTrack>, key: string): KeyTrack {
  let found = keys.get(key);
  if (found === undefined) {
    found = {
      running: false,
      startedAt: 0,
      triggered: false,
      restored: false,
      restoreOnRelease: false,
      dueAt: undefined,
    };
    keys.set(key, found);
  }
  return found;
}

/** Folds one event of the operator into what the spec knows. */
function follow(keys: Map<string, KeyTrack>, event: ReconcileEvent): void {
  if (event.type === 'rejected') return;
  const key = track(keys, event.key);
  switch (event.type) {
    case 'started':
      Object.assign(key, { running: true, startedAt: event.time, triggered: false, restored: false, dueAt: undefined });
      return;
    case 'succeeded':
      key.running = false;
      return;
    case 'failed':
      if (event.held === true) key.restoreOnRelease = event.gateClosed === true;
      else {
        key.running = false;
        key.restored = event.gateClosed === true;
      }
      return;
    case 'released':
      key.running = false;
      key.restored = key.restoreOnRelease;
      key.restoreOnRelease = false;
      return;
    case 'requeued':
    case 'retrying':
      key.dueAt = event.time + event.delayMs;
      return;
    case 'dropped':
      return;
  }
}

/** Plays `scenario` in virtual time, checking the hook against the spec's count at every call and every half frame. */
function play(scenario: Scenario): string[] {
  const scheduler = new VirtualTimeScheduler(undefined, 10_000_000);
  const problems: string[] = [];
  const keys = new Map<string, KeyTrack>();
  let view: ReconcileQueueView | undefined;
  let adds = 0;
  let starts = 0;
  let stopped = false;
  let closed = false;
  /**
   * Within a hook call only the hook's own identity can be checked (the spec learns of the run from the events that
   * follow); at a half frame everything has settled, and the hook must agree with the spec's count.
   */
  const check = (where: string, settled: boolean): void => {
    if (view === undefined || closed) return;
    const now = scheduler.now();
    if (!stopped && adds - starts !== view.depth)
      problems.push(`${now} ${where}: ${adds} adds - ${starts} starts, depth ${view.depth}`);
    if (!settled) return;
    const expected = waitingKeys(keys, now);
    if (view.depth !== expected) problems.push(`${now} ${where}: depth ${view.depth}, ${expected} keys waiting`);
    const runs = [...keys.values()].filter((key) => key.running);
    const unfinished = runs.reduce((sum, key) => sum + (now - key.startedAt), 0);
    const longest = runs.reduce((max, key) => Math.max(max, now - key.startedAt), 0);
    if (view.activeWorkers !== runs.length)
      problems.push(`${now} ${where}: ${view.activeWorkers} workers, ${runs.length} runs`);
    if (view.unfinishedWorkMs !== unfinished || view.longestRunningMs !== longest) {
      problems.push(
        `${now} ${where}: unfinished ${view.unfinishedWorkMs}/${unfinished}, longest ${view.longestRunningMs}/${longest}`,
      );
    }
  };
  const hook: ReconcileMetrics = {
    opened: (queue) => {
      if (view !== undefined) problems.push('opened twice');
      view = queue;
    },
    closed: () => {
      if (closed) problems.push('closed twice');
      closed = true;
    },
    added: () => {
      if (closed || stopped) problems.push(`${scheduler.now()}: added after ${closed ? 'closed' : 'stop'}`);
      adds += 1;
      check('added', false);
    },
    started: () => {
      starts += 1;
      check('started', false);
    },
  };
  let feed: Subject<string> | undefined;
  let calls = 0;
  const fn = ({
    key,
  }: {
    key: string;
  }): ReconcileResult | Observable<ReconcileResult> | PromiseLike<ReconcileResult> => {
    const step = scenario.steps[calls++] ?? {
      kind: 'ok',
      duration: 1,
      after: 0,
      sync: true,
      promise: false,
      retrigger: false,
    };
    if (step.retrigger) send(key);
    const failure = step.kind === 'terminal' ? new TerminalError('terminal') : new Error('failed');
    const result = step.kind === 'requeue' ? { requeueAfter: step.after } : undefined;
    if (step.sync) {
      if (step.kind === 'fail' || step.kind === 'terminal') throw failure;
      return result;
    }
    if (step.promise)
      return settleLater(
        scheduler,
        step.duration,
        step.kind === 'fail' || step.kind === 'terminal' ? { error: failure } : { value: result },
      );
    return timer(step.duration, scheduler).pipe(
      mergeMap(() => (step.kind === 'fail' || step.kind === 'terminal' ? throwError(() => failure) : of(result))),
    );
  };
  /** A trigger, as the operator takes it: ignored once it stopped. */
  const send = (key: string): void => {
    if (feed === undefined || stopped) return;
    track(keys, key).triggered = true;
    feed.next(key);
  };
  const gate = new BehaviorSubject(true);
  for (const at of [...scenario.gateFlips].sort((x, y) => x - y)) scheduler.schedule(() => gate.next(!gate.value), at);
  scheduler.schedule(() => gate.next(true), 95);
  const stop$ = new Subject<void>();
  if (scenario.stopAt !== undefined) {
    scheduler.schedule(() => {
      stopped = true;
      for (const key of keys.values())
        Object.assign(key, { triggered: false, restored: false, restoreOnRelease: false, dueAt: undefined });
      stop$.next();
    }, scenario.stopAt);
  }
  const source = new Observable<string>((subscriber) => {
    feed = new Subject<string>();
    const subscription = feed.subscribe(subscriber);
    return () => {
      subscription.unsubscribe();
      feed = undefined;
    };
  });
  for (const { at, key } of scenario.triggers) scheduler.schedule(() => send(key), at);
  for (let at = 0.5; at < 300; at += 1) scheduler.schedule(() => check('sampled', true), at);
  source
    .pipe(
      reconcile(fn, {
        scheduler,
        gate,
        stop$,
        metrics: hook,
        concurrency: scenario.concurrency,
        maxRetries: scenario.maxRetries,
        timeout: scenario.timeout,
        globalRateLimiter: false, // its delays are fractional; every other time here is a whole ms, so half frames are settled
      }),
    )
    .subscribe({
      next: (event) => follow(keys, event),
      error: (error: unknown) => problems.push(`errored: ${String(error)}`),
    });
  scheduler.flush();
  if (!closed) {
    check('settled', true);
    if (view !== undefined && view.depth !== 0) problems.push(`settled with depth ${view.depth}`);
  }
  if (!stopped && adds !== starts) problems.push(`settled with ${adds} adds and ${starts} starts`);
  return problems;
}

describe('reconcile: the metrics hook under random schedules (property)', () => {
  it('reports a depth that always equals the keys waiting to run, adds that minus starts equal it, and the runs in flight as workers', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => {
        expect(play(scenario)).to.deep.equal([]);
      }),
      { numRuns: 200 },
    );
  });
});
