/**
 * One subscription of {@link reconcile}: intake, the pump that starts runs, and the bookkeeping when runs end.
 * Internal; the operator function wraps it.
 */
import { isObservable, take } from 'rxjs';
import type { Observable, Subscriber, Subscription, Unsubscribable } from 'rxjs';
import { KeyedQueue } from './keyedQueue.js';
import type { KeyState } from './keyedQueue.js';
import type { ResolvedOptions } from './options.js';
import { DEFAULT_MAX_DELAY_MS } from './rateLimiters.js';
import type { RateLimiter } from './rateLimiters.js';
import {
  InvalidReconcileResultError,
  REQUEUE_REASON,
  RETRY_REASON,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  TerminalError,
  describe,
} from './types.js';
import type { ReconcileEvent, ReconcileFn, ReconcileTrigger } from './types.js';

/** One in-flight run. */
interface Run {
  readonly state: KeyState;
  readonly attempt: number;
  readonly reasons: readonly string[];
  readonly queueWaitMs: number;
  readonly startedAt: number;
  done: boolean;
  /** Whether the run is in `inFlight` (only asynchronous runs are). */
  tracked: boolean;
  work: Unsubscribable | undefined;
  deadline: Subscription | undefined;
}

/** The fields every event about one finished run carries. */
interface RunFields {
  readonly key: string;
  readonly attempt: number;
  readonly reasons: readonly string[];
  readonly queueWaitMs: number;
  readonly durationMs: number;
  readonly time: number;
}

/** A delay chosen by the limiters, plus what went wrong if one misbehaved. */
interface Delay {
  readonly ms: number;
  readonly limiterError?: unknown;
}

/** Asks a limiter for a delay without letting a buggy implementation crash the stream. */
function askLimiter(limiter: RateLimiter, key: string, now: number): Delay {
  try {
    const ms = limiter.when(key, now);
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return { ms };
    return { ms: DEFAULT_MAX_DELAY_MS, limiterError: new RangeError(`rate limiter returned ${describe(ms)} for ${key}`) };
  } catch (error) {
    return { ms: DEFAULT_MAX_DELAY_MS, limiterError: error };
  }
}

function combine(a: Delay, b: Delay | undefined): Delay {
  if (b === undefined) return a;
  const ms = Math.max(a.ms, b.ms);
  const limiterError = a.limiterError ?? b.limiterError;
  return limiterError === undefined ? { ms } : { ms, limiterError };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** `undefined` for success, a delay for a requeue, an error for anything else. */
function parseResult(key: string, value: unknown): number | undefined | InvalidReconcileResultError {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && 'requeueAfter' in value) {
    const ms = (value as { requeueAfter: unknown }).requeueAfter;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
  }
  return new InvalidReconcileResultError(key, value);
}

const OK = 0;
const FAILED = 1;

/** Drives one subscription. Every public method is safe to call after `dispose`. */
export class Runner<T> {
  private readonly queue: KeyedQueue;
  private readonly inFlight = new Set<Run>();
  private readonly limiter: RateLimiter;
  private readonly bucket: RateLimiter | undefined;
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
    for (const run of this.inFlight) this.cancel(run);
    this.inFlight.clear();
    this.queue.dispose();
    this.drainTimer?.unsubscribe();
    this.source?.unsubscribe();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  private intake(trigger: ReconcileTrigger | string): void {
    if (this.closed || this.stopping) return;
    let key: unknown = trigger;
    let reason: unknown;
    if (typeof trigger !== 'string') {
      key = trigger !== null && typeof trigger === 'object' ? trigger.key : undefined;
      reason = key === undefined ? undefined : trigger.reason;
    }
    if (typeof key !== 'string' || key === '' || (reason !== undefined && typeof reason !== 'string')) {
      const error = new TypeError(
        `reconcile: a trigger must be a non-empty key string or { key: string, reason?: string }, got ${describe(trigger)}`,
      );
      this.out.next({ type: 'rejected', trigger, error, time: this.options.scheduler.now() });
      return;
    }
    this.pump(this.queue.trigger(key, reason as string | undefined));
  }

  /** Starts ready keys while slots are free. `now`, if given, was just read and serves the first start only. */
  private pump(now?: number): void {
    if (this.pumping) return; // the outer loop picks up whatever the nested call wanted
    this.pumping = true;
    try {
      while (!this.closed && this.gateOpen && !this.stopping && this.active < this.options.concurrency) {
        const state = this.queue.take();
        if (state === undefined) break;
        this.begin(state, now ?? this.options.scheduler.now());
        now = undefined;
      }
    } finally {
      this.pumping = false;
    }
    this.maybeComplete();
  }

  private begin(state: KeyState, now: number): void {
    const run: Run = {
      state,
      attempt: state.failures + 1,
      reasons: this.queue.takeReasons(state),
      queueWaitMs: now - state.enqueuedAt,
      startedAt: now,
      done: false,
      tracked: false,
      work: undefined,
      deadline: undefined,
    };
    this.active += 1;
    const { key } = state;
    this.out.next({ type: 'started', key, attempt: run.attempt, reasons: run.reasons, queueWaitMs: run.queueWaitMs, time: now });
    if (this.closed) return;
    let output: unknown;
    try {
      const object = this.options.lookup === undefined ? undefined : this.options.lookup(key);
      output = this.fn({ key, object, reasons: run.reasons, attempt: run.attempt });
    } catch (error) {
      this.end(run, FAILED, error);
      return;
    }
    if (isObservable(output)) {
      const work = (output as Observable<unknown>).pipe(take(1)).subscribe({
        next: (value) => this.settle(run, value),
        error: (error: unknown) => this.end(run, FAILED, error),
        complete: () => this.settle(run, undefined),
      });
      if (run.done) work.unsubscribe();
      else run.work = work;
    } else if (isThenable(output)) {
      try {
        output.then(
          (value) => this.settle(run, value),
          (error: unknown) => this.end(run, FAILED, error),
        );
      } catch (error) {
        // A hand-made thenable may throw from `then` itself; that is the user's failure, not ours.
        this.end(run, FAILED, error);
        return;
      }
    } else {
      this.settle(run, output);
      return;
    }
    if (run.done || this.closed) return;
    this.inFlight.add(run);
    run.tracked = true;
    const { timeout, scheduler } = this.options;
    if (timeout !== undefined) {
      run.deadline = scheduler.schedule(() => this.end(run, FAILED, new ReconcileTimeoutError(key, timeout)), timeout);
    }
  }

  private settle(run: Run, value: unknown): void {
    const parsed = parseResult(run.state.key, value);
    if (parsed instanceof InvalidReconcileResultError) this.end(run, FAILED, parsed);
    else this.end(run, OK, parsed);
  }

  private cancel(run: Run): void {
    run.done = true;
    run.work?.unsubscribe();
    run.deadline?.unsubscribe();
  }

  /** Ends a run exactly once: frees its slot, updates the key, emits its events, then lets the pump continue. */
  private end(run: Run, outcome: typeof OK | typeof FAILED, detail: unknown): void {
    if (run.done || this.closed) return;
    this.cancel(run);
    if (run.tracked) this.inFlight.delete(run);
    this.active -= 1;
    const { state, attempt, reasons, queueWaitMs } = run;
    const { key } = state;
    const now = this.options.scheduler.now();
    const durationMs = now - run.startedAt;
    this.queue.finish(state, now, !this.stopping);

    if (outcome === OK) {
      if (state.failures !== 0) this.forget(state); // the limiters saw this key only if it failed
      // Written out rather than spread from a shared base: this is the hot path of every run.
      this.out.next({ type: 'succeeded', key, attempt, reasons, queueWaitMs, durationMs, time: now });
      if (detail !== undefined && !this.stopping && !this.closed) {
        const base = { key, attempt, reasons, queueWaitMs, durationMs, time: now };
        const delay = combine({ ms: detail as number }, this.bucket && askLimiter(this.bucket, key, now));
        const at = this.queue.delay(state, now + delay.ms, now, REQUEUE_REASON);
        this.out.next({ type: 'requeued', ...base, delayMs: at - now, ...limiterErrorOf(delay) });
      }
    } else {
      this.failed(state, { key, attempt, reasons, queueWaitMs, durationMs, time: now }, detail, now);
    }
    this.queue.release();
    this.pump();
  }

  /** The failure half of {@link end}: decides between terminal, dropped and retrying, and reports it. */
  private failed(state: KeyState, base: RunFields, detail: unknown, now: number): void {
    const { key } = state;
    if (detail instanceof TerminalError || this.stopping) {
      if (detail instanceof TerminalError) this.forget(state);
      this.out.next({ type: 'failed', ...base, error: detail, terminal: detail instanceof TerminalError });
    } else {
      state.failures += 1;
      const failures = state.failures;
      if (failures > this.options.maxRetries) {
        this.forget(state);
        this.out.next({ type: 'failed', ...base, error: detail, terminal: false });
        if (!this.closed) this.out.next({ type: 'dropped', ...base, failures });
      } else {
        const delay = combine(askLimiter(this.limiter, key, now), this.bucket && askLimiter(this.bucket, key, now));
        const at = this.queue.delay(state, now + delay.ms, now, RETRY_REASON);
        this.out.next({ type: 'failed', ...base, error: detail, terminal: false });
        if (!this.closed) this.out.next({ type: 'retrying', ...base, delayMs: at - now, failures, ...limiterErrorOf(delay) });
      }
    }
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
    const { drainTimeout, scheduler } = this.options;
    this.drainTimer = scheduler.schedule(() => {
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

function limiterErrorOf(delay: Delay): { limiterError?: unknown } {
  return delay.limiterError === undefined ? {} : { limiterError: delay.limiterError };
}
