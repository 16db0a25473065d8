/**
 * The reconcile queue's rate limiters, as client-go's `workqueue` builds them: `rateLimiters.exponential()` is
 * `NewTypedItemExponentialFailureRateLimiter`, `rateLimiters.tokenBucket()` is the `BucketRateLimiter`,
 * `rateLimiters.fastSlow()` is `NewTypedItemFastSlowRateLimiter` and `rateLimiters.maxOf(...)` is
 * `NewTypedMaxOfRateLimiter`. Each returns a `RateLimiter` for `reconcile`'s `rateLimiter` (per key; default
 * `exponential()`) or `globalRateLimiter` (shared by every failure retry; default `tokenBucket()`) option: together
 * the defaults are client-go's `DefaultTypedControllerRateLimiter`.
 *
 * @example
 * ```ts
 * import { rateLimiters, reconcile } from 'rxkube';
 *
 * const perKey = rateLimiters.maxOf(
 *   rateLimiters.exponential({ maxMs: 60_000 }),
 *   rateLimiters.fastSlow({ fastMs: 100, slowMs: 10_000, maxFastAttempts: 3 }),
 * );
 * requests$.pipe(reconcile(fn, { rateLimiter: perKey, globalRateLimiter: rateLimiters.tokenBucket({ qps: 5, burst: 50 }) }));
 * ```
 * @packageDocumentation
 */
export {
  exponentialRateLimiter as exponential,
  fastSlowRateLimiter as fastSlow,
  maxOfRateLimiter as maxOf,
  tokenBucketRateLimiter as tokenBucket,
} from './rate-limiters.js';
export type { ExponentialOptions, FastSlowOptions, TokenBucketOptions } from './rate-limiters.js';
