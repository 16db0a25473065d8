/**
 * Exponential backoff as pure functions of the attempt and one random sample, shared by the reflector, the rate
 * limiters and every retry loop, so there is one definition of "base · factor^n, capped, jittered".
 */

/** Shape of an exponential backoff: `base · factor^attempt`, capped at `capMs`. */
export interface BackoffPolicy {
  /** The first delay, ms. */
  readonly baseMs: number;
  /** What each further delay is multiplied by. */
  readonly factor: number;
  /** The longest delay, ms. */
  readonly capMs: number;
}

/**
 * The ceiling `min(cap, base · factor^attempt)` before any jitter.
 *
 * # Guarantees
 * - Pure; `attempt` counts from 0, so the first retry's ceiling is `baseMs`.
 * - Never NaN or Infinity, whatever the attempt: the exponent is clamped before it overflows.
 * - Never decreases as `attempt` grows (for `factor >= 1`).
 */
export function backoffCeiling(attempt: number, policy: BackoffPolicy): number {
  const n = Math.max(0, Math.floor(attempt));
  const raw = policy.baseMs * policy.factor ** Math.min(n, 1024);
  return Number.isFinite(raw) ? Math.min(policy.capMs, raw) : policy.capMs;
}

/**
 * Full jitter: `sample · ceiling(attempt)`, uniform in `[0, ceiling)` for a uniform sample in `[0, 1)`. This is
 * client-go's reflector backoff shape; it spreads a herd of clients across the whole window.
 *
 * # Guarantees
 * - Pure, never negative, never above `capMs`; a sample outside `[0, 1]` (or NaN) is clamped.
 */
export function fullJitter(attempt: number, sample: number, policy: BackoffPolicy): number {
  return clamp01(sample) * backoffCeiling(attempt, policy);
}

/**
 * Proportional jitter, as client-go's `wait.Jitter(d, maxFactor)`: `ms + sample · maxFactor · ms`. Used where a
 * delay must never be shorter than asked (conflict retries, leader-election renewals).
 *
 * # Guarantees
 * - Pure; the result is in `[ms, ms · (1 + maxFactor)]` for a sample in `[0, 1]`. A `maxFactor <= 0` adds nothing.
 */
export function proportionalJitter(ms: number, maxFactor: number, sample: number): number {
  return maxFactor > 0 ? ms + clamp01(sample) * maxFactor * ms : ms;
}

function clamp01(x: number): number {
  return Number.isNaN(x) ? 0 : Math.min(1, Math.max(0, x));
}
