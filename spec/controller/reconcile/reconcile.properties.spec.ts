import { expect } from 'chai';
import fc from 'fast-check';
import { BehaviorSubject, Observable, VirtualTimeScheduler, finalize, mergeMap, of, throwError, timer } from 'rxjs';
import {
  HIGH_PRIORITY,
  LOW_PRIORITY,
  TerminalError,
  reconcile,
  tokenBucketRateLimiter,
} from '../../../src/controller/index.js';
import type { ReconcileEvent, ReconcileResult } from '../../../src/controller/index.js';
import { settleLater } from '../helpers.js';

/** What the n-th call of the reconcile function does. */
interface Outcome {
  readonly kind: 'ok' | 'fail' | 'throw' | 'terminal' | 'requeue';
  readonly duration: number;
  readonly after: number;
  /** Return (or throw) synchronously instead of through a timed Observable: the operator's allocation-free path. */
  readonly sync: boolean;
  /** Trigger the same key again from inside the reconcile function, before it returns (re-entrancy). */
  readonly retrigger: boolean;
  /** Settle through a Promise-like result instead of an Observable: it cannot be cancelled at a timeout. */
  readonly promise: boolean;
  /** The priority a requeue asks for, if any. */
  readonly priority: number | undefined;
}

interface Scenario {
  readonly triggers: readonly { readonly at: number; readonly key: string; readonly priority: number | undefined }[];
  readonly outcomes: readonly Outcome[];
  readonly concurrency: number;
  readonly maxRetries: number | undefined;
  readonly bucket: boolean;
  /** Times at which the gate flips (it starts open and is forced open at 95). */
  readonly gateFlips: readonly number[];
  /** The per-run `timeout`, if any: Observables are cancelled at it, Promises abandoned but still holding the key. */
  readonly timeout: number | undefined;
  /** The ordering options: every guarantee holds whatever the priorities, aging and fairness groups. */
  readonly aging: { readonly after: number; readonly every: number };
  readonly fairness: boolean;
}

const priority = fc.option(fc.constantFrom(LOW_PRIORITY, 0, HIGH_PRIORITY, 7), { nil: undefined });

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  triggers: fc.array(
    fc.record({ at: fc.integer({ min: 0, max: 80 }), key: fc.constantFrom('a', 'b', 'ns1/c', 'ns2/d'), priority }),
    {
      minLength: 1,
      maxLength: 40,
    },
  ),
  outcomes: fc.array(
    fc.record({
      kind: fc.constantFrom<Outcome['kind']>('ok', 'ok', 'fail', 'throw', 'terminal', 'requeue'),
      duration: fc.integer({ min: 0, max: 15 }),
      after: fc.integer({ min: 0, max: 30 }),
      sync: fc.boolean(),
      retrigger: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
      promise: fc.boolean(),
      priority,
    }),
    { maxLength: 60 },
  ),
  concurrency: fc.integer({ min: 1, max: 4 }),
  maxRetries: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  bucket: fc.boolean(),
  gateFlips: fc.array(fc.integer({ min: 0, max: 90 }), { maxLength: 6 }),
  timeout: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
  aging: fc.record({ after: fc.integer({ min: 0, max: 40 }), every: fc.integer({ min: 1, max: 4 }) }),
  fairness: fc.boolean(),
});

interface Observed {
  readonly events: ReconcileEvent[];
  readonly overlaps: string[];
  readonly maxActive: number;
  readonly lastTrigger: Map<string, number>;
  readonly lastStart: Map<string, number>;
  readonly completed: boolean;
  readonly errored: boolean;
  /** Each `requeued` event's delay, beside the `requeueAfter` its run asked for. */
  readonly requeues: { readonly asked: number; readonly delayMs: number }[];
}

/** Plays a scenario in virtual time until nothing is left to do. Calls after `outcomes` run out succeed. */
function play(scenario: Scenario): Observed {
  const scheduler = new VirtualTimeScheduler();
  const observed: Observed = {
    events: [],
    overlaps: [],
    maxActive: 0,
    lastTrigger: new Map(),
    lastStart: new Map(),
    completed: false,
    errored: false,
    requeues: [],
  };
  /** The `requeueAfter` the latest run of each key asked for (runs of a key never overlap). */
  const asked = new Map<string, number>();
  const running = new Set<string>();
  let sequence = 0;
  let calls = 0;
  let active = 0;
  let feed: { next: (key: string) => void } | undefined;
  const fn = ({ key }: { key: string }): ReconcileResult => {
    observed.lastStart.set(key, sequence++);
    if (running.has(key)) observed.overlaps.push(key);
    running.add(key);
    active += 1;
    (observed as { maxActive: number }).maxActive = Math.max(observed.maxActive, active);
    const outcome: Outcome = scenario.outcomes[calls++] ?? {
      kind: 'ok',
      duration: 1,
      after: 0,
      sync: false,
      retrigger: false,
      promise: false,
      priority: undefined,
    };
    asked.set(key, outcome.after);
    const release = (): void => {
      running.delete(key);
      active -= 1;
    };
    if (outcome.retrigger && feed !== undefined) {
      observed.lastTrigger.set(key, sequence++);
      feed.next(key);
    }
    // A success value is sometimes an API-object-like value, which must count as success like `undefined`.
    const success = outcome.after % 2 === 0 ? undefined : { kind: 'Pod', metadata: { name: key } };
    if (outcome.kind === 'throw' || (outcome.sync && (outcome.kind === 'fail' || outcome.kind === 'terminal'))) {
      release();
      throw outcome.kind === 'terminal' ? new TerminalError('terminal') : new Error('panic');
    }
    const requeue = { requeueAfter: outcome.after, priority: outcome.priority };
    if (outcome.sync) {
      release();
      return outcome.kind === 'requeue' ? requeue : success;
    }
    if (outcome.promise) {
      const settled =
        outcome.kind === 'fail'
          ? { error: new Error('failed') }
          : outcome.kind === 'terminal'
            ? { error: new TerminalError('terminal') }
            : { value: outcome.kind === 'requeue' ? requeue : success };
      // The key counts as running until the Promise really settles, however long after its timeout.
      return settleLater(scheduler, outcome.duration, settled, release);
    }
    return timer(outcome.duration, scheduler).pipe(
      mergeMap(() => {
        if (outcome.kind === 'fail') return throwError(() => new Error('failed'));
        if (outcome.kind === 'terminal') return throwError(() => new TerminalError('terminal'));
        return of(outcome.kind === 'requeue' ? requeue : success);
      }),
      finalize(release),
    );
  };
  const source = new Observable<string | { key: string; priority: number }>((subscriber) => {
    feed = subscriber;
    for (const { at, key, priority } of [...scenario.triggers].sort((x, y) => x.at - y.at)) {
      scheduler.schedule(() => {
        observed.lastTrigger.set(key, sequence++);
        subscriber.next(priority === undefined ? key : { key, priority });
      }, at);
    }
    scheduler.schedule(() => {
      feed = undefined; // a completed source takes no more triggers, so none may be counted as sent
      subscriber.complete();
    }, 100);
  });
  const gate = new BehaviorSubject(true);
  for (const at of [...scenario.gateFlips].sort((x, y) => x - y)) scheduler.schedule(() => gate.next(!gate.value), at);
  scheduler.schedule(() => gate.next(true), 95);
  source
    .pipe(
      reconcile(fn, {
        scheduler,
        gate,
        concurrency: scenario.concurrency,
        maxRetries: scenario.maxRetries,
        globalRateLimiter: scenario.bucket ? tokenBucketRateLimiter({ qps: 100, burst: 3 }) : false,
        timeout: scenario.timeout,
        aging: scenario.aging,
        fairness: scenario.fairness ? undefined : () => '',
      }),
    )
    .subscribe({
      next: (event) => {
        observed.events.push(event);
        if (event.type === 'requeued') observed.requeues.push({ asked: asked.get(event.key)!, delayMs: event.delayMs });
      },
      error: () => ((observed as { errored: boolean }).errored = true),
      complete: () => ((observed as { completed: boolean }).completed = true),
    });
  scheduler.flush();
  return observed;
}

/**
 * Checks each key's events against `started ( succeeded requeued? | failed ( retrying | dropped )? released? )`,
 * where a `failed` marked `gateClosed` stands alone and leaves the attempt number as it was, and `released` comes
 * exactly after a `failed` marked `held`, before the key's next start.
 */
function grammarViolation(events: readonly ReconcileEvent[]): string | undefined {
  const phases = new Map<
    string,
    { phase: 'idle' | 'running' | 'succeeded' | 'failed'; attempt: number; held: boolean }
  >();
  for (const event of events) {
    if (event.type === 'rejected') return 'unexpected rejected event';
    const key = phases.get(event.key) ?? { phase: 'idle' as const, attempt: 1, held: false };
    phases.set(event.key, key);
    const expectPhase = (...allowed: (typeof key.phase)[]): string | undefined =>
      allowed.includes(key.phase) ? undefined : `${event.key}: ${event.type} after ${key.phase}`;
    let problem: string | undefined;
    switch (event.type) {
      case 'started':
        problem = expectPhase('idle', 'succeeded');
        if (key.held) problem ??= `${event.key}: started while its abandoned Promise still holds it`;
        if (event.attempt !== key.attempt)
          problem ??= `${event.key}: attempt ${event.attempt}, expected ${key.attempt}`;
        key.phase = 'running';
        break;
      case 'succeeded':
        problem = expectPhase('running');
        key.phase = 'succeeded';
        key.attempt = 1;
        break;
      case 'requeued':
        problem = expectPhase('succeeded');
        key.phase = 'idle';
        break;
      case 'failed':
        problem = expectPhase('running');
        key.held = event.held === true;
        if (event.gateClosed === true) {
          // Not counted: nothing follows, and the key's next run has the same attempt number.
          if (event.terminal) problem ??= `${event.key}: a terminal failure marked gateClosed`;
          key.phase = 'idle';
          break;
        }
        key.phase = event.terminal ? 'idle' : 'failed';
        key.attempt = 1;
        break;
      case 'retrying':
        problem = expectPhase('failed');
        key.phase = 'idle';
        key.attempt = event.attempt + 1;
        break;
      case 'dropped':
        problem = expectPhase('failed');
        key.phase = 'idle';
        break;
      case 'released':
        if (!key.held) problem = `${event.key}: released without a held failure`;
        key.held = false;
        break;
    }
    if (problem !== undefined) return problem;
  }
  for (const [key, { phase, held }] of phases) {
    if (phase === 'running' || phase === 'failed') return `${key} ended ${phase}`;
    if (held) return `${key} ended held, never released`;
  }
  return undefined;
}

const runs = { numRuns: 150 };

describe('reconcile: properties over random schedules of triggers, durations, failures and gate flips', () => {
  it('never runs the same key twice at once', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => play(scenario).overlaps.length === 0),
      runs,
    );
  });

  it('always runs a key once more after a trigger that arrived after its last start (nothing lost)', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => {
        const { lastTrigger, lastStart } = play(scenario);
        return [...lastTrigger].every(([key, triggered]) => (lastStart.get(key) ?? -1) > triggered);
      }),
      runs,
    );
  });

  it('never exceeds the concurrency bound', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => play(scenario).maxActive <= scenario.concurrency),
      runs,
    );
  });

  it('emits a well-formed event sequence per key, never errors, and completes once the work is done', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => {
        const { events, completed, errored } = play(scenario);
        expect(grammarViolation(events)).to.equal(undefined);
        expect(errored).to.equal(false);
        expect(completed).to.equal(true);
        return events.every((event, i) => i === 0 || event.time >= events[i - 1]!.time);
      }),
      runs,
    );
  });

  it('never delays a requeue beyond what its run asked for, whatever the bucket: a requeue takes no token', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => play(scenario).requeues.every(({ asked, delayMs }) => delayMs <= asked)),
      runs,
    );
  });

  it('detects a malformed sequence (the grammar checker itself can fail)', () => {
    const base = { key: 'a', attempt: 1, reasons: [], queueWaitMs: 0, time: 0 };
    expect(
      grammarViolation([
        { type: 'started', ...base },
        { type: 'started', ...base },
      ]),
    ).to.match(/started after running/);
    expect(
      grammarViolation([
        { type: 'started', ...base },
        { type: 'failed', ...base, durationMs: 0, error: 1, terminal: false },
      ]),
    ).to.match(/ended failed/);
    const held = [
      { type: 'started', ...base },
      { type: 'failed', ...base, durationMs: 0, error: 1, terminal: false, held: true },
      { type: 'dropped', ...base, durationMs: 0, error: 1, failures: 1 },
    ] as const;
    expect(grammarViolation(held)).to.match(/never released/);
    expect(grammarViolation([...held, { type: 'started', ...base }])).to.match(/still holds it/);
    expect(grammarViolation([{ type: 'released', ...base, durationMs: 0 }])).to.match(/without a held failure/);
  });
});
