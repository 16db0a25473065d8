/**
 * One subscription of {@link reconcile}: intake, the pump that starts runs, and the bookkeeping when runs end.
 * Internal; the operator function wraps it.
 */
import { isObservable, take } from 'rxjs';
import { describeValue } from '../describe/index.js';
import type { Observable, SchedulerLike, Subscriber, Subscription, Unsubscribable } from 'rxjs';
import { KeyedQueue } from './keyedQueue.js';
import type { KeyState } from './keyedQueue.js';
import type { ResolvedOptions } from './options.js';
import { askLimiter, combineDelays } from './rateLimiters.js';
import type { RateLimiter } from './rateLimiters.js';
import {
  InvalidReconcileResultError,
  REQUEUE_REASON,
  RETRY_REASON,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  TerminalError,
  isThenable,
  parseResult,
} from './types.js';
import type { ReconcileEvent, ReconcileFn, ReconcileTrigger } from './types.js';

/**
 * One asynchronous run (an Observable or Promise result). Synchronous runs, the common case for cheap reconciles,
 * never allocate one: they finish before `begin` returns.
 */
interface Run {
  readonly state: KeyState;
  readonly attempt: number;
  readonly reasons: readonly string[];
  readonly queueWaitMs: number;
  readonly startedAt: number;
  done: boolean;
  work: Unsubscribable | undefined;
  deadline: Subscription | undefined;
}

const OK = 0;
const FAILED = 1;
type Outcome = typeof OK | typeof FAILED;

/**
 * Drives one subscription. Every public method is safe to call after `dispose`.
 *
 * Hot-path notes (the per-trigger and per-run cost is what the throughput benchmark measures): a synchronous run
 * allocates only its request and its two events; the clock is read once when a key's wait starts (reused for a
 * start in the same call) and once when a run ends, never for a coalesced trigger; events are object literals
 * with one fixed shape per type.
 */
export class Runner<T> {
  private readonly queue: KeyedQueue;
  private readonly inFlight = new Set<Run>();
  private readonly limiter: RateLimiter;
  private readonly bucket: RateLimiter | undefined;
  private readonly scheduler: SchedulerLike;
  private readonly concurrency: number;
  private readonly lookup: ((key: string) => T | undefined) | undefined;
  private readonly subscriptions: Subscription[] = [];
  private source: Subscription | undefined;
  private drainTimer: Subscription | undefined;
  private active = 0;
  private gateOpen: boolean;
  private stopping = false;
  private sourceDone = false;
  private closed = false;
  private pumping = false;

  constructor(
    private readonly fn: ReconcileFn<T>,
    private readonly options: ResolvedOptions<T>,
    private readonly out: Subscriber<ReconcileEvent>,
  ) {
    this.scheduler = options.scheduler;
    this.concurrency = options.concurrency;
    this.lookup = options.lookup;
    this.queue = new KeyedQueue(options.scheduler, () => this.pump());
    this.limiter = options.rateLimiter();
    this.bucket = options.globalRateLimiter();
    this.gateOpen = options.gate === undefined;
  }

  /** Subscribes gate, stop notifier and source, in that order, so a synchronous gate is known before any trigger. */
  start(source: Observable<ReconcileTrigger | string>): void {
    const { gate, stop$ } = this.options;
    if (gate !== undefined) {
      this.hold(
        gate.subscribe({
          next: (open) => {
            this.gateOpen = open === true;
            if (this.gateOpen) this.pump();
          },
          error: (error: unknown) => this.fail(error),
        }),
      );
    }
    if (stop$ !== undefined && !this.closed) {
      this.hold(stop$.subscribe({ next: () => this.stop(), error: (error: unknown) => this.fail(error) }));
    }
    if (this.closed || this.stopping) return;
    const subscription = source.subscribe({
      next: (trigger) => this.intake(trigger),
      error: (error: unknown) => this.fail(error),
      complete: () => {
        this.sourceDone = true;
        this.maybeComplete();
      },
    });
    if (this.closed || this.stopping) subscription.unsubscribe();
    else this.source = subscription;
  }

  /** Keeps an inner subscription for teardown, or drops it at once if it closed us while subscribing. */
  private hold(subscription: Subscription): void {
    if (this.closed) subscription.unsubscribe();
    else this.subscriptions.push(subscription);
  }

  /** Cancels everything at once: in-flight work, timers, inner subscriptions. Emits nothing. */
  dispose(): void {
    this.closed = true;
    for (const run of this.inFlight) cancel(run);
    this.inFlight.clear();
    this.queue.dispose();
    this.drainTimer?.unsubscribe();
    this.source?.unsubscribe();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  private intake(trigger: ReconcileTrigger | string): void {
    if (this.closed || this.stopping) return;
    // The common case, a plain key, skips the shape checks below.
    if (typeof trigger === 'string' && trigger !== '') {
      const now = this.queue.trigger(trigger, undefined);
      if (now !== undefined) this.pump(now);
      return;
    }
    let key: unknown = trigger;
    let reason: unknown;
    if (typeof trigger !== 'string') {
      key = trigger !== null && typeof trigger === 'object' ? trigger.key : undefined;
      reason = key === undefined ? undefined : trigger.reason;
    }
    if (typeof key !== 'string' || key === '' || (reason !== undefined && typeof reason !== 'string')) {
      const error = new TypeError(
        `reconcile: a trigger must be a non-empty key string or { key: string, reason?: string }, got ${describeValue(trigger)}`,
      );
      this.out.next({ type: 'rejected', trigger, error, time: this.scheduler.now() });
      return;
    }
    const now = this.queue.trigger(key, reason as string | undefined);
    // A coalesced trigger changed nothing the pump could act on, so it is not called: no clock read, no loop.
    if (now !== undefined) this.pump(now);
  }

  /** Starts ready keys while slots are free. `now`, if given, was just read and serves the first start only. */
  private pump(now?: number): void {
    if (this.pumping) return; // the outer loop picks up whatever the nested call wanted
    this.pumping = true;
    try {
      while (!this.closed && this.gateOpen && !this.stopping && this.active < this.concurrency) {
        const state = this.queue.take();
        if (state === undefined) break;
        this.begin(state, now ?? this.scheduler.now());
        now = undefined;
      }
    } finally {
      this.pumping = false;
    }
    this.maybeComplete();
  }

  private begin(state: KeyState, now: number): void {
    const { key } = state;
    const attempt = state.failures + 1;
    const reasons = this.queue.takeReasons(state);
    const queueWaitMs = now - state.enqueuedAt;
    this.active += 1;
    this.out.next({ type: 'started', key, attempt, reasons, queueWaitMs, time: now });
    if (this.closed) return;
    let output: unknown;
    try {
      const lookup = this.lookup;
      output = this.fn({ key, object: lookup === undefined ? undefined : lookup(key), reasons, attempt });
    } catch (error) {
      this.finish(state, attempt, reasons, queueWaitMs, now, FAILED, error);
      return;
    }
    if (output === undefined || output === null || (typeof output !== 'object' && typeof output !== 'function')) {
      // A primitive result: success, settled without allocating a Run.
      this.finish(state, attempt, reasons, queueWaitMs, now, OK, undefined);
      return;
    }
    let observable: boolean;
    try {
      observable = isObservable(output);
      if (!observable && !isThenable(output)) {
        this.settleSync(state, attempt, reasons, queueWaitMs, now, output);
        return;
      }
    } catch (error) {
      // Telling the kinds apart reads `then`/`subscribe`; a hostile getter or Proxy is the user's failure, not a crash.
      this.finish(state, attempt, reasons, queueWaitMs, now, FAILED, error);
      return;
    }
    const run: Run = { state, attempt, reasons, queueWaitMs, startedAt: now, done: false, work: undefined, deadline: undefined };
    this.inFlight.add(run);
    if (observable) {
      const work = (output as Observable<unknown>).pipe(take(1)).subscribe({
        next: (value) => this.settle(run, value),
        error: (error: unknown) => this.end(run, FAILED, error),
        complete: () => this.settle(run, undefined),
      });
      if (run.done) work.unsubscribe();
      else run.work = work;
    } else {
      try {
        (output as PromiseLike<unknown>).then(
          (value) => this.settle(run, value),
          (error: unknown) => this.end(run, FAILED, error),
        );
      } catch (error) {
        // A hand-made thenable may throw from `then` itself; that is the user's failure, not ours.
        this.end(run, FAILED, error);
      }
    }
    const timeout = this.options.timeout;
    if (run.done || this.closed || timeout === undefined) return;
    run.deadline = this.scheduler.schedule(() => this.end(run, FAILED, new ReconcileTimeoutError(key, timeout)), timeout);
  }

  private settleSync(state: KeyState, attempt: number, reasons: readonly string[], queueWaitMs: number, startedAt: number, value: unknown): void {
    const parsed = parseResult(state.key, value);
    if (parsed instanceof InvalidReconcileResultError) this.finish(state, attempt, reasons, queueWaitMs, startedAt, FAILED, parsed);
    else this.finish(state, attempt, reasons, queueWaitMs, startedAt, OK, parsed);
  }

  private settle(run: Run, value: unknown): void {
    const parsed = parseResult(run.state.key, value);
    if (parsed instanceof InvalidReconcileResultError) this.end(run, FAILED, parsed);
    else this.end(run, OK, parsed);
  }

  /** Ends an asynchronous run exactly once. */
  private end(run: Run, outcome: Outcome, detail: unknown): void {
    if (run.done || this.closed) return;
    cancel(run);
    this.inFlight.delete(run);
    this.finish(run.state, run.attempt, run.reasons, run.queueWaitMs, run.startedAt, outcome, detail);
  }

  /** Ends a run: frees its slot, updates the key, emits its events, then lets the pump continue. */
  private finish(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    startedAt: number,
    outcome: Outcome,
    detail: unknown,
  ): void {
    if (this.closed) return;
    this.active -= 1;
    const { key } = state;
    const now = this.scheduler.now();
    const durationMs = now - startedAt;
    this.queue.finish(state, now, !this.stopping);

    if (outcome === OK) {
      if (state.failures !== 0) this.forget(state); // the limiters saw this key only if it failed
      this.out.next({ type: 'succeeded', key, attempt, reasons, queueWaitMs, durationMs, time: now });
      if (detail !== undefined && !this.stopping && !this.closed) {
        const delay = combineDelays({ ms: detail as number }, this.bucket && askLimiter(this.bucket, key, now));
        const delayMs = this.queue.delay(state, now + delay.ms, now, REQUEUE_REASON) - now;
        this.out.next(
          delay.limiterError === undefined
            ? { type: 'requeued', key, attempt, reasons, queueWaitMs, durationMs, time: now, delayMs }
            : { type: 'requeued', key, attempt, reasons, queueWaitMs, durationMs, time: now, delayMs, limiterError: delay.limiterError },
        );
      }
    } else {
      this.failed(state, attempt, reasons, queueWaitMs, durationMs, now, detail);
    }
    this.queue.release();
    this.pump();
  }

  /** The failure half of {@link finish}: decides between terminal, dropped and retrying, and reports it. */
  private failed(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    durationMs: number,
    now: number,
    error: unknown,
  ): void {
    const { key } = state;
    const terminal = error instanceof TerminalError;
    if (terminal || this.stopping) {
      if (terminal) this.forget(state);
      this.out.next({ type: 'failed', key, attempt, reasons, queueWaitMs, durationMs, time: now, error, terminal });
      return;
    }
    const failures = (state.failures += 1);
    if (failures > this.options.maxRetries) {
      this.forget(state);
      this.out.next({ type: 'failed', key, attempt, reasons, queueWaitMs, durationMs, time: now, error, terminal: false });
      if (!this.closed) this.out.next({ type: 'dropped', key, attempt, reasons, queueWaitMs, durationMs, time: now, failures });
      return;
    }
    const delay = combineDelays(askLimiter(this.limiter, key, now), this.bucket && askLimiter(this.bucket, key, now));
    const delayMs = this.queue.delay(state, now + delay.ms, now, RETRY_REASON) - now;
    this.out.next({ type: 'failed', key, attempt, reasons, queueWaitMs, durationMs, time: now, error, terminal: false });
    if (this.closed) return;
    this.out.next(
      delay.limiterError === undefined
        ? { type: 'retrying', key, attempt, reasons, queueWaitMs, durationMs, time: now, delayMs, failures }
        : { type: 'retrying', key, attempt, reasons, queueWaitMs, durationMs, time: now, delayMs, failures, limiterError: delay.limiterError },
    );
  }

  private forget(state: KeyState): void {
    state.failures = 0;
    try {
      this.limiter.forget(state.key);
    } catch {
      // A limiter that cannot forget only makes this key's next backoff longer; that must not end the stream.
    }
  }

  private stop(): void {
    if (this.stopping || this.closed) return;
    this.stopping = true;
    this.source?.unsubscribe();
    this.queue.clearPending();
    if (this.active === 0) {
      this.complete();
      return;
    }
    const { drainTimeout } = this.options;
    this.drainTimer = this.scheduler.schedule(() => {
      for (const run of [...this.inFlight]) this.end(run, FAILED, new ReconcileCancelledError(run.state.key, drainTimeout));
      this.complete();
    }, drainTimeout);
  }

  private maybeComplete(): void {
    if (this.closed || this.active > 0) return;
    if (this.stopping || (this.sourceDone && this.queue.pendingCount === 0)) this.complete();
  }

  private complete(): void {
    if (this.closed) return;
    this.dispose();
    this.out.complete();
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.dispose();
    this.out.error(error);
  }
}

function cancel(run: Run): void {
  run.done = true;
  run.work?.unsubscribe();
  run.deadline?.unsubscribe();
}
