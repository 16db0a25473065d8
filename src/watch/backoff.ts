/**
 * Exponential backoff with full jitter, as a pure function of the attempt and one random sample.
 */

/** Shape of an exponential backoff: `base · factor^attempt`, capped. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly factor: number;
  readonly capMs: number;
}

/** client-go's reflector numbers: 800 ms, factor 2, cap 30 s. */
export const DEFAULT_WATCH_BACKOFF: BackoffPolicy = { baseMs: 800, factor: 2, capMs: 30_000 };

/** How long a watch must stay healthy before the backoff attempt counter resets (client-go: 2 min). */
export const BACKOFF_RESET_MS = 120_000;

/**
 * The full-jitter delay for a retry: `jitter · min(cap, base · factor^attempt)`.
 *
 * # Guarantees
 * - Pure: same inputs, same output; `jitter` is the caller's random sample in [0, 1).
 * - Never negative, never above `capMs`, never NaN for large attempts (the exponent is clamped before it
 *   overflows).
 * - `attempt` counts from 0: the first retry's ceiling is `baseMs`.
 */
export function exponentialBackoff(attempt: number, jitter: number, policy: BackoffPolicy = DEFAULT_WATCH_BACKOFF): number {
  return clamp01(jitter) * backoffCeiling(attempt, policy);
}

/** The ceiling `min(cap, base · factor^attempt)` that {@link exponentialBackoff} scales by its jitter. */
export function backoffCeiling(attempt: number, policy: BackoffPolicy = DEFAULT_WATCH_BACKOFF): number {
  const n = Math.max(0, Math.floor(attempt));
  const raw = policy.baseMs * Math.pow(policy.factor, Math.min(n, 1024));
  return Number.isFinite(raw) ? Math.min(policy.capMs, raw) : policy.capMs;
}

function clamp01(x: number): number {
  return Number.isNaN(x) ? 0 : Math.min(1, Math.max(0, x));
}
