/**
 * The reflector's backoff numbers (client-go's), over the shared backoff arithmetic.
 */
import { fullJitter, type BackoffPolicy } from '../backoff/index.js';

/** client-go's reflector numbers: 800 ms, factor 2, cap 30 s. */
export const DEFAULT_WATCH_BACKOFF: BackoffPolicy = { baseMs: 800, factor: 2, capMs: 30_000 };

/** How long a watch must stay healthy before the backoff attempt counter resets (client-go: 2 min). */
export const BACKOFF_RESET_MS = 120_000;

/**
 * The reflector's delay for a retry: full jitter over `min(cap, base · factor^attempt)`.
 *
 * # Guarantees
 * - Pure: same inputs, same output; `jitter` is the caller's random sample in [0, 1).
 * - Never negative, never above `capMs`, never NaN for large attempts.
 * - `attempt` counts from 0: the first retry's ceiling is `baseMs`.
 */
export function exponentialBackoff(
  attempt: number,
  jitter: number,
  policy: BackoffPolicy = DEFAULT_WATCH_BACKOFF,
): number {
  return fullJitter(attempt, jitter, policy);
}
