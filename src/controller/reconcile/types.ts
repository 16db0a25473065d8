/**
 * The values that flow into and out of `reconcile`: triggers, requests, results, events and errors.
 */
import type { Observable } from 'rxjs';
import { describeValue } from '../../error-messages/index.js';
import type { StaleRead } from 'rxkube/extend';

/**
 * The priority of the initial list, of relists, of a late subscriber's replay of a cache and of resyncs: the
 * triggers `toKeys`, `toOwnerKeys` and `mapKeys` derive from such events get it unless the mapping sets one.
 * controller-runtime's `handler.LowPriority`, the same number.
 */
export const LOW_PRIORITY = -100;
/** The priority of a trigger that sets none: a live change, a plain key. */
export const NORMAL_PRIORITY = 0;
/** A priority above live changes, for triggers a user wants served first. */
export const HIGH_PRIORITY = 100;

/**
 * Asks for `key` to be reconciled. `reason` says why (for example `updated` or `owner:default/web`); reasons of
 * triggers coalesced into one run are collected into that run's `reasons`. `priority` orders it among the ready keys.
 */
export interface ReconcileTrigger {
  /** `namespace/name` for namespaced objects, `name` for cluster-scoped ones. Must be a non-empty string. */
  readonly key: string;
  /** Why the key was triggered; optional. */
  readonly reason?: string;
  /**
   * A safe integer; higher runs first among ready keys ({@link LOW_PRIORITY} -100, {@link NORMAL_PRIORITY} 0,
   * {@link HIGH_PRIORITY} 100, or any other integer). Default {@link NORMAL_PRIORITY}. Triggers coalesced into one run
   * give it the highest of their priorities.
   */
  readonly priority?: number;
}

/**
 * What every reconcile function receives, with or without a `lookup`.
 *
 * # Guarantees
 * - `reasons` holds the distinct reasons of every trigger coalesced into this run, in arrival order, plus
 *   `'retry'` when the run retries a failure and `'requeue'` when a `{ requeueAfter }` result scheduled it.
 * - `attempt` is 1 for a first try and counts up while the key keeps failing; it goes back to 1 after a success,
 *   a drop or a terminal failure.
 * - `signal` is aborted when the run must stop: on `timeout`, when the drain after `stop$` runs out of time, on
 *   unsubscribe, and when the `gate` closes (lost leadership). Its `reason` is a {@link ReconcileTimeoutError},
 *   {@link ReconcileCancelledError} or {@link ReconcileAbortedError}. Pass it to `fetch`, to the client layer or to
 *   any API that takes one, so abandoned work stops at once and frees its key.
 *
 * # Caveats
 * - `reasons` is read-only in fact, not only in type: an empty or one-element array is frozen and shared between
 *   runs (so the common case allocates nothing). The same array is carried by this run's events.
 * - `signal` is created on first read; reading it costs one `AbortController`. It is a getter, so a spread copy of
 *   the request (`{ ...request }`) does not carry it.
 */
export interface ReconcileKeyRequest {
  /** The key to reconcile: `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /** Why the run happens: the distinct reasons of the triggers coalesced into it, plus `retry` or `requeue`. */
  readonly reasons: readonly string[];
  /** 1 for a first try; counts up while the key keeps failing. */
  readonly attempt: number;
  /** Aborted when the run must stop (timeout, drain timeout, unsubscribe, gate closed). */
  readonly signal: AbortSignal;
  /**
   * The run's priority: the highest of the triggers coalesced into it, and of the retry or requeue it carries
   * (see {@link ReconcileTrigger.priority}).
   */
  readonly priority: number;
}

/**
 * What a reconcile function receives from an operator given a `lookup`: the key and its latest object.
 *
 * # Guarantees
 * - `object` is `lookup(key)` evaluated when the run starts, not the payload of any trigger (level-triggered).
 *   `undefined` means the object is gone (deleted), and nothing else: an operator without a `lookup` hands out
 *   {@link ReconcileKeyRequest}s, which have no `object` in their type, and reading `object` on one throws.
 */
export interface ReconcileRequest<T> extends ReconcileKeyRequest {
  /** The latest object for the key when the run starts; `undefined` means deleted. */
  readonly object: T | undefined;
}

/** The reason recorded for a run that a `{ requeueAfter }` result scheduled. */
export const REQUEUE_REASON = 'requeue';
/** The reason recorded for a run that retries a failure. */
export const RETRY_REASON = 'retry';

/** Asks for the key to be reconciled again after `requeueAfter` ms, without counting a failure. */
export interface RequeueAfter {
  /** Delay in milliseconds; a finite number `>= 0`. */
  readonly requeueAfter: number;
  /**
   * The priority of the requeued run, a safe integer (controller-runtime's `Result.Priority`). Default: the priority
   * of the run that asked for it.
   */
  readonly priority?: number;
}

/**
 * The result of one run. A {@link RequeueAfter} asks for a requeue; **any other value means success** and is
 * ignored, so `reconcile(() => from(api.patch(...)))` works as written: the patched object is simply a success.
 *
 * # Caveats
 * - An object that has a `requeueAfter` property whose value is not a finite number `>= 0` (say `'5s'`, `-1`,
 *   `undefined`) is a failure with a `TypeError` named `InvalidReconcileResultError`, so a broken requeue never passes silently.
 * - A misspelt property (`{ requeueAftr: 5 }`) has no `requeueAfter` and is therefore a plain success: the type is
 *   `unknown` by necessity, so use the {@link RequeueAfter} type where you build one to let the compiler check it.
 */
export type ReconcileResult = unknown;

/**
 * What a reconcile function may return: a result, a Promise of one, or an Observable whose first value (or bare
 * completion, meaning success) is the result. Written out for documentation; it is `unknown` to the compiler.
 */
export type ReconcileOutput = ReconcileResult | PromiseLike<ReconcileResult> | Observable<ReconcileResult>;

/** A user reconcile function given the latest object. It may throw, reject or error: each is a failure, never a crash. */
export type ReconcileFn<T> = (request: ReconcileRequest<T>) => ReconcileOutput;

/** A user reconcile function of an operator without a `lookup`: it gets the key only. */
export type ReconcileKeyFn = (request: ReconcileKeyRequest) => ReconcileOutput;

/**
 * Everything the `reconcile` operator emits: one event per step of a key's runs, and `rejected` for an input that is
 * not a key. Narrow on `type`. Per key the events follow this grammar (one line per run, runs strictly one after
 * another):
 *
 * ```
 * run := started ( succeeded requeued? | failed ( retrying | dropped )? released? )
 * ```
 *
 * - `started`: a run began; `fn` is called right after this event is emitted.
 * - `succeeded`: the run returned success. `requeued` follows it when the result was `{ requeueAfter }`; its
 *   `delayMs` is the effective delay (no rate limiter is asked: a requeue is a schedule).
 * - `failed`: the run failed (a throw, rejection, Observable error, timeout, invalid result or drain cancellation).
 *   It stands alone when the error is terminal, while draining after `stop$` (no retry is scheduled then), and when
 *   the gate closed during the run (`gateClosed: true`: the key is ready again and runs once the gate opens).
 * - `retrying` follows `failed` when the key will be retried; `dropped` when `maxRetries` is exhausted (the key's
 *   failure history is forgotten and it is not retried).
 * - `released` follows exactly the `failed` events marked `held` (a Promise that outlived its `timeout`), once that
 *   Promise settles: the key and its concurrency slot are free again. Events of other keys may come in between.
 * - `rejected`: an input value that is not a non-empty string nor a `{ key: string }` object. It is reported, not
 *   dropped silently, and not a crash; it belongs to no key.
 *
 * Every event but `rejected` carries `key`, `attempt`, `reasons`, `queueWaitMs` and `time`. `queueWaitMs` is the
 * time from the key becoming ready to the run starting: a key becomes ready at its first trigger since its last
 * start (for a key triggered while running: that trigger, so the wait includes the rest of the run) or at the end of
 * its retry or requeue delay.
 */
export type ReconcileEvent =
  | {
      /** Discriminates the event. */
      readonly type: 'started';
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
      /**
       * Present when the run starts on caches that do not show everything its key's last runs wrote: the `readiness`
       * hook (read-your-own-writes) waited for them as long as its bound allows, then let the run start anyway.
       */
      readonly staleRead?: StaleRead;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'succeeded';
      /** How long the run took, ms. */
      readonly durationMs: number;
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'requeued';
      /** How long the run took, ms. */
      readonly durationMs: number;
      /**
       * Effective delay: the requested one, or less when the key was already scheduled earlier (the earliest time
       * wins), or 0 if a fresh trigger already made the key ready.
       */
      readonly delayMs: number;
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'failed';
      /** How long the run took, ms (to the timeout or the cancellation, for a run cut short). */
      readonly durationMs: number;
      /** What the run threw, rejected or errored with, or the operator's own error (timeout, invalid result, cancellation). */
      readonly error: unknown;
      /** True when `error` is a {@link TerminalError}: the key is not retried. */
      readonly terminal: boolean;
      /**
       * Present when the `gate` closed while the run was in flight (lost leadership) and the run then failed, whatever
       * with (typically the {@link ReconcileAbortedError} of its signal): this is not the reconcile's own failure. No
       * event follows it, no failure is counted (no backoff, no token, no charge against `maxRetries`), and the key is
       * ready again with the run's reasons and attempt number, so it runs once the gate is open. Never set while
       * draining, nor for a {@link TerminalError}.
       */
      readonly gateClosed?: true;
      /**
       * Present when the run returned a Promise that outlived its `timeout`: the failure is reported at the deadline,
       * but the Promise cannot be cancelled, so the run still holds its key and its concurrency slot. It counts as a
       * run in flight until the `released` event of its key, which follows once the Promise settles (it never follows
       * if the Promise never settles, or the stream ends first).
       */
      readonly held?: true;
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'retrying';
      /** How long the failed run took, ms. */
      readonly durationMs: number;
      /** The error of the failed run this retry follows (the same value as on its `failed` event). */
      readonly error: unknown;
      /**
       * Effective delay: max(per-key, global bucket), or 0 if a fresh trigger already made the key ready. For a
       * Promise abandoned at its `timeout`, the retry also waits until that Promise settles.
       */
      readonly delayMs: number;
      /** Consecutive failures of this key so far. */
      readonly failures: number;
      /** Set when a limiter misbehaved (threw or returned a bad delay). */
      readonly limiterError?: unknown;
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'dropped';
      /** How long the last run took, ms. */
      readonly durationMs: number;
      /** Consecutive failures of this key, the last one included. */
      readonly failures: number;
      /** The error of the last failed run, the one that exhausted `maxRetries`. */
      readonly error: unknown;
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'released';
      /** How long the run held its key and slot, from its start until the Promise settled, ms. */
      readonly durationMs: number;
      /** The key the event is about. */
      readonly key: string;
      /** The attempt number of the run (see {@link ReconcileKeyRequest.attempt}). */
      readonly attempt: number;
      /** The run's coalesced trigger reasons. */
      readonly reasons: readonly string[];
      /** Time from the key becoming ready to the run starting, ms (see {@link ReconcileEvent}). */
      readonly queueWaitMs: number;
      /** The scheduler's `now()` when the event was emitted, ms. */
      readonly time: number;
    }
  | {
      /** Discriminates the event. */
      readonly type: 'rejected';
      /** The input value as received. */
      readonly trigger: unknown;
      /** Why it was rejected. */
      readonly error: TypeError;
      /** The scheduler's `now()` when it was rejected, ms. */
      readonly time: number;
    };

/** The events about one key: every {@link ReconcileEvent} but `rejected`. */
export type ReconcileKeyEvent = Exclude<ReconcileEvent, { readonly type: 'rejected' }>;
/** The fields every per-key event carries. */
export type ReconcileEventBase = Pick<ReconcileKeyEvent, 'key' | 'attempt' | 'reasons' | 'queueWaitMs' | 'time'>;
/** The `started` {@link ReconcileEvent}. */
export type ReconcileStarted = Extract<ReconcileEvent, { readonly type: 'started' }>;
/** The `succeeded` {@link ReconcileEvent}. */
export type ReconcileSucceeded = Extract<ReconcileEvent, { readonly type: 'succeeded' }>;
/** The `requeued` {@link ReconcileEvent}. */
export type ReconcileRequeued = Extract<ReconcileEvent, { readonly type: 'requeued' }>;
/** The `failed` {@link ReconcileEvent}. */
export type ReconcileFailed = Extract<ReconcileEvent, { readonly type: 'failed' }>;
/** The `retrying` {@link ReconcileEvent}. */
export type ReconcileRetrying = Extract<ReconcileEvent, { readonly type: 'retrying' }>;
/** The `dropped` {@link ReconcileEvent}. */
export type ReconcileDropped = Extract<ReconcileEvent, { readonly type: 'dropped' }>;
/** The `released` {@link ReconcileEvent}. */
export type ReconcileReleased = Extract<ReconcileEvent, { readonly type: 'released' }>;
/** The `rejected` {@link ReconcileEvent}. */
export type ReconcileRejected = Extract<ReconcileEvent, { readonly type: 'rejected' }>;

/**
 * Thrown (or rejected, or errored) by a reconcile function to say that retrying cannot help: the run is reported
 * as `failed` with `terminal: true`, and the key's failure history is forgotten. A later trigger runs it again.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** The error of a run that exceeded the `timeout` option. Counts as an ordinary (retried) failure. */
export class ReconcileTimeoutError extends Error {
  constructor(
    /** The key whose run timed out. */
    readonly key: string,
    /** The `timeout` option, ms. */
    readonly timeoutMs: number,
  ) {
    super(`reconcile of ${key} timed out after ${timeoutMs} ms`);
    this.name = 'ReconcileTimeoutError';
  }
}

/**
 * The abort reason of a run whose subscriber unsubscribed (`why: 'unsubscribed'`) or whose gate closed while it
 * ran (`why: 'gate closed'`, e.g. lost leadership). A gate closing does not end the run by itself: the reconcile
 * function sees its signal aborted and decides. A success is reported as usual; a failure is reported with
 * `gateClosed: true` and not counted, and the key runs again once the gate opens.
 */
export class ReconcileAbortedError extends Error {
  constructor(
    /** The key whose run was aborted. */
    readonly key: string,
    /** What aborted it. */
    readonly why: 'unsubscribed' | 'gate closed',
  ) {
    super(`reconcile of ${key} aborted: ${why}`);
    this.name = 'ReconcileAbortedError';
  }
}

/** The error of an in-flight run cut short because the drain after `stop$` exceeded `drainTimeout`. */
export class ReconcileCancelledError extends Error {
  constructor(
    /** The key whose run was cancelled. */
    readonly key: string,
    /** The `drainTimeout` option, ms. */
    readonly drainTimeoutMs: number,
  ) {
    super(`reconcile of ${key} cancelled: shutdown drain exceeded ${drainTimeoutMs} ms`);
    this.name = 'ReconcileCancelledError';
  }
}

/**
 * The error of a run whose result is an object with a `requeueAfter` property that is not a finite number `>= 0`,
 * or a requeue whose `priority` is not a safe integer. Counts as an ordinary (retried) failure. Results without a
 * `requeueAfter` property never produce it. Not exported: it marks a mistake in the reconcile function, and its
 * `name` tells it apart on a `failed` event.
 */
export class InvalidReconcileResultError extends TypeError {
  constructor(
    /** The key whose run returned it. */
    readonly key: string,
    /** The result as returned. */
    readonly result: unknown,
    what = 'requeueAfter must be a finite number of ms >= 0',
  ) {
    super(`reconcile of ${key} returned ${describeValue(result)}; ${what}`);
    this.name = 'InvalidReconcileResultError';
  }
}
