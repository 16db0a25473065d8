/**
 * The error a listWatch Observable can fail with, and when.
 */
import type { WatchFailure } from './types.js';

/** HTTP codes that `failFast` turns into an Observable error instead of a retry. */
export const FAIL_FAST_CODES: ReadonlySet<number> = new Set([400, 401, 403, 404, 422]);

/**
 * The error a `listWatch` Observable fails with: under `failFast` for 400/401/403/404/422 and an unknown kind, and
 * always for problems no retry can fix (a malformed apiVersion, a namespace on a cluster-scoped kind, bad options).
 */
export class ListWatchError extends Error {
  /** Always `'ListWatchError'`. */
  override readonly name = 'ListWatchError';
  constructor(
    /** Why the list or watch failed. */
    readonly failure: WatchFailure,
    what: string,
  ) {
    super(`listWatch ${what}: ${failure.code === undefined ? '' : `${failure.code} `}${failure.reason}: ${failure.message}`);
  }
}
