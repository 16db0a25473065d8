/**
 * The reconcile operator: its keyed queue, runner, outcomes, options, metrics and readiness hooks, and rate limiters. The controller
 * folder's index picks the public names; `builder/` and `context/` import the operator from here.
 */
export { reconcile } from './reconcile.js';
export { DEFAULT_AGING_AFTER_MS, DEFAULT_AGING_EVERY, DEFAULT_DRAIN_TIMEOUT_MS } from './options.js';
export type { AgingOptions, Lookup, ReconcileLookupOptions, ReconcileOptions, ReservedSlots } from './options.js';
export { bothMetrics } from './metrics.js';
export type { ReconcileMetrics, ReconcileQueueView } from './metrics-hook.js';
export type { ReconcileReadiness, StaleObject, StaleRead } from './readiness-hook.js';
export type { KeyGate } from './key-gate.js';
export {
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_BURST,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_QPS,
  exponentialRateLimiter,
  fastSlowRateLimiter,
  maxOfRateLimiter,
  tokenBucketRateLimiter,
} from './rate-limiters.js';
export type { ExponentialOptions, FastSlowOptions, RateLimiter, TokenBucketOptions } from './rate-limiters.js';
export * as rateLimiters from './rate-limiters-namespace.js';
export * as priorities from './priorities-namespace.js';
export {
  HIGH_PRIORITY,
  InvalidReconcileResultError,
  LOW_PRIORITY,
  NORMAL_PRIORITY,
  ReconcileAbortedError,
  REQUEUE_REASON,
  RETRY_REASON,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  TerminalError,
} from './types.js';
export type {
  ReconcileDropped,
  ReconcileEvent,
  ReconcileEventBase,
  ReconcileFailed,
  ReconcileFn,
  ReconcileKeyFn,
  ReconcileKeyRequest,
  ReconcileKeyEvent,
  ReconcileOutput,
  ReconcileRejected,
  ReconcileReleased,
  ReconcileRequest,
  ReconcileRequeued,
  ReconcileResult,
  ReconcileRetrying,
  ReconcileStarted,
  ReconcileSucceeded,
  ReconcileTrigger,
  RequeueAfter,
} from './types.js';
export { checkMetrics } from './metrics.js';
