/**
 * What happens to a key when its run ends: the events that report it and the retry or requeue it schedules.
 * Internal to the reconcile operator; `Runner` owns the slots and the pump, this owns the decisions.
 */
import type { Subscriber } from 'rxjs';
import type { KeyedQueue, KeyState } from './keyed-queue.js';
import type { ReconcileMetrics } from './metrics-hook.js';
import { askLimiter, combineDelays } from './rate-limiters.js';
import type { RateLimiter } from './rate-limiters.js';
import type { Requeue } from './results.js';
import { REQUEUE_REASON, RETRY_REASON, TerminalError } from './types.js';
import type { ReconcileEvent, ReconcileFailed, ReconcileSucceeded } from './types.js';

/** The metrics hook's `outcome`. */
type OutcomeHook = NonNullable<ReconcileMetrics['outcome']>;

/** The runner's state the decisions depend on; read at each decision, since an emission may change it. */
export interface RunnerState {
  readonly closed: boolean;
  readonly stopping: boolean;
}

/**
 * Reports run outcomes and schedules what follows them. The facts of the run (attempt, reasons, queue wait,
 * duration, the time it ended) come as separate arguments, not as an object: one outcome per run is the hot path.
 *
 * # Guarantees
 * - Per run, the events follow `succeeded requeued? | failed ( retrying | dropped )?`; a `failed` of a `held` run
 *   (an abandoned Promise) is marked `held`, and the runner reports its `released` when it settles.
 * - Nothing is emitted after an emission closed the runner (a consumer that unsubscribed from inside a callback).
 * - The per-key limiter is told to forget a key after a success (if it had failed), a drop or a terminal failure.
 * - The metrics hook's `outcome` hears each run once, right after its last event, with its completion and follow-up
 *   (none once an emission closed the runner).
 */
export class Outcomes {
  constructor(
    private readonly queue: KeyedQueue,
    private readonly out: Subscriber<ReconcileEvent>,
    private readonly limiter: RateLimiter,
    private readonly bucket: RateLimiter | undefined,
    private readonly maxRetries: number,
    private readonly runner: RunnerState,
    private readonly hook: OutcomeHook | undefined,
  ) {}

  /**
   * A success; `requeue` schedules the key again unless the runner is stopping, at its priority (default: the
   * run's). Neither limiter is asked: only failure retries are rate limited.
   */
  succeeded(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    durationMs: number,
    now: number,
    requeue: Requeue | undefined,
  ): void {
    const { key } = state;
    if (state.failures !== 0) this.forget(state); // the limiters saw this key only if it failed
    const succeeded: ReconcileSucceeded = {
      type: 'succeeded',
      key,
      attempt,
      reasons,
      queueWaitMs,
      durationMs,
      time: now,
    };
    this.out.next(succeeded);
    if (requeue === undefined || this.runner.stopping || this.runner.closed) {
      this.report(succeeded, undefined);
      return;
    }
    // A requested requeue is a schedule, not a retry (controller-runtime's `AddAfter`): it takes no token from the
    // global bucket, so periodic resyncs can neither be stretched by it nor make failure retries wait behind them.
    const delayMs =
      this.queue.delay(state, now + requeue.after, now, REQUEUE_REASON, requeue.priority ?? state.runPriority) - now;
    const requeued = { type: 'requeued', key, attempt, reasons, queueWaitMs, durationMs, time: now, delayMs } as const;
    this.out.next(requeued);
    this.report(succeeded, requeued);
  }

  /**
   * A failure: decides between terminal, dropped and retrying, and reports it. For a `held` run (an abandoned
   * Promise) the key is still running, so the retry is not queued here: its time is returned, for the runner to
   * queue once the Promise settles. Returns undefined when no retry follows.
   */
  failed(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    durationMs: number,
    now: number,
    error: unknown,
    held: boolean,
  ): number | undefined {
    const { key } = state;
    const terminal = error instanceof TerminalError;
    if (terminal || this.runner.stopping) {
      if (terminal) this.forget(state);
      this.report(
        this.emitFailed(state, attempt, reasons, queueWaitMs, durationMs, now, error, terminal, held),
        undefined,
      );
      return undefined;
    }
    const failures = (state.failures += 1);
    if (failures > this.maxRetries) {
      this.forget(state);
      const failed = this.emitFailed(state, attempt, reasons, queueWaitMs, durationMs, now, error, false, held);
      if (this.runner.closed) return undefined;
      const dropped = {
        type: 'dropped',
        key,
        attempt,
        reasons,
        queueWaitMs,
        durationMs,
        time: now,
        failures,
        error,
      } as const;
      this.out.next(dropped);
      this.report(failed, dropped);
      return undefined;
    }
    const delay = combineDelays(askLimiter(this.limiter, key, now), this.bucket && askLimiter(this.bucket, key, now));
    const retryAt = now + delay.ms;
    const delayMs = held ? delay.ms : this.queue.delay(state, retryAt, now, RETRY_REASON) - now;
    const failed = this.emitFailed(state, attempt, reasons, queueWaitMs, durationMs, now, error, false, held);
    if (this.runner.closed) return undefined;
    const { limiterError } = delay;
    const retrying = {
      type: 'retrying',
      key,
      attempt,
      reasons,
      queueWaitMs,
      durationMs,
      time: now,
      error,
      delayMs,
      failures,
      // Present only when a limiter failed: the event has no limiterError key otherwise, not an undefined one.
      ...(limiterError === undefined ? {} : { limiterError }),
    } as const;
    this.out.next(retrying);
    this.report(failed, retrying);
    return retryAt;
  }

  /**
   * A failure of a run whose gate closed while it was in flight (lost leadership): not the reconcile's own failure.
   * It is reported as `failed` with `gateClosed: true` and nothing follows it: no failure is counted (the next run
   * has the same attempt number, and `maxRetries` is not charged), no limiter is asked, and the key is ready again
   * at once with the run's reasons, so it runs as soon as the gate is open. For a `held` run (an abandoned Promise)
   * the key is still running: the runner makes it ready once the Promise settles. While draining it is an ordinary
   * failure.
   */
  interrupted(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    durationMs: number,
    now: number,
    error: unknown,
    held: boolean,
  ): void {
    if (this.runner.stopping) {
      this.failed(state, attempt, reasons, queueWaitMs, durationMs, now, error, held);
      return;
    }
    if (!held) this.queue.restore(state, reasons, now);
    const { key } = state;
    const failed = failedEvent(key, attempt, reasons, queueWaitMs, durationMs, now, error, false, held, true);
    this.out.next(failed);
    this.report(failed, undefined);
  }

  /** Reports a failed run; a `held` one (an abandoned Promise) is marked so, until its `released` event. */
  private emitFailed(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    durationMs: number,
    now: number,
    error: unknown,
    terminal: boolean,
    held: boolean,
  ): ReconcileFailed {
    const { key } = state;
    const failed = failedEvent(key, attempt, reasons, queueWaitMs, durationMs, now, error, terminal, held);
    this.out.next(failed);
    return failed;
  }

  /** Tells the metrics hook how a run ended, unless an emission closed the runner. */
  private report(run: ReconcileSucceeded | ReconcileFailed, next: Parameters<OutcomeHook>[1]): void {
    if (this.hook !== undefined && !this.runner.closed) this.hook(run, next);
  }

  private forget(state: KeyState): void {
    state.failures = 0;
    try {
      this.limiter.forget(state.key);
    } catch {
      // A limiter that cannot forget only makes this key's next backoff longer; that must not end the stream.
    }
  }
}

/**
 * A `failed` event. `gateClosed` (the gate closed during the run) and `held` (an abandoned Promise, until its
 * `released` event) are there only when true: an event without them has no such keys, not undefined ones.
 */
function failedEvent(
  key: string,
  attempt: number,
  reasons: readonly string[],
  queueWaitMs: number,
  durationMs: number,
  time: number,
  error: unknown,
  terminal: boolean,
  held: boolean,
  gateClosed = false,
): ReconcileFailed {
  return {
    type: 'failed',
    key,
    attempt,
    reasons,
    queueWaitMs,
    durationMs,
    time,
    error,
    terminal,
    ...(gateClosed ? { gateClosed: true as const } : {}),
    ...(held ? { held: true as const } : {}),
  };
}
