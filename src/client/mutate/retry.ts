/**
 * The delays of `mutate`'s conflict retries: client-go's `wait.Backoff.Step()`, from the shared backoff arithmetic.
 */
import { backoffCeiling, proportionalJitter } from '../../backoff/index.js';
import type { ResourceClient } from '../resource/index.js';

/**
 * The delay before retry number `retry` (0 for the first retry): `duration · factor^retry`, stretched by up to
 * `jitter` of itself with `sample` (uniform in [0, 1)).
 *
 * # Guarantees
 * - For client-go's `DefaultRetry` (10 ms, factor 1, jitter 0.1): every delay is in [10, 11) ms.
 * - Never shorter than the unjittered delay, as `wait.Jitter` guarantees.
 */
export function retryDelay(retry: number, policy: ResourceClient.RetryPolicy, sample: number): number {
  const ceiling = backoffCeiling(retry, {
    baseMs: policy.durationMs,
    factor: policy.factor,
    capMs: Number.MAX_SAFE_INTEGER,
  });
  return proportionalJitter(ceiling, policy.jitter, sample);
}
