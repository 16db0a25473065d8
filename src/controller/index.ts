/**
 * Controller building blocks: the coalescing, rate-limited reconcile operator and its rate limiters.
 * @packageDocumentation
 */
export { reconcile } from './reconcile.js';
export { DEFAULT_AGING_AFTER_MS, DEFAULT_AGING_EVERY, DEFAULT_DRAIN_TIMEOUT_MS } from './options.js';
export type { AgingOptions, Lookup, ReconcileLookupOptions, ReconcileOptions } from './options.js';
export { bothMetrics } from './metrics.js';
export type { ReconcileMetrics, ReconcileQueueView } from './metrics.js';
export {
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_BURST,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_QPS,
  exponentialRateLimiter,
  fastSlowRateLimiter,
  maxOfRateLimiter,
  tokenBucketRateLimiter,
} from './rateLimiters.js';
export type { ExponentialOptions, FastSlowOptions, RateLimiter, TokenBucketOptions } from './rateLimiters.js';
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
