/**
 * The error a listWatch Observable can fail with, and when.
 */
import type { WatchFailure } from './types.js';

/**
 * HTTP codes of a list or watch that no retry can fix, so the reflector stops on them (status `failed`, then a
 * `ListWatchError`) whatever `failFast` says:
 * - 400 Bad Request: the request itself is wrong (a selector the server cannot parse, a field label the kind does
 *   not support);
 * - 405 Method Not Allowed: the kind does not serve list or watch;
 * - 406 Not Acceptable: the server cannot answer in the asked representation (`metadataOnly` on a server without
 *   `PartialObjectMetadata`);
 * - 414 URI Too Long: the selectors make the request too long;
 * - 422 Unprocessable Entity: the list options are invalid.
 *
 * Outside it: 401, 403 and 404 (credentials rotate, RBAC and CRDs get installed) are retried unless `failFast`; 410
 * relists; 429 waits its `Retry-After`; 5xx and network failures back off and retry. A 4xx answer to a streaming
 * list's first request means the server does not serve streaming lists: the reflector falls back to list and watch.
 */
export const TERMINAL_CODES: ReadonlySet<number> = new Set([400, 405, 406, 414, 422]);

/** HTTP codes that `failFast` turns into an Observable error instead of a retry, on top of `TERMINAL_CODES`. */
export const FAIL_FAST_CODES: ReadonlySet<number> = new Set([400, 401, 403, 404, 405, 406, 414, 422]);

/** Whether the reflector stops on `cause` instead of retrying it. */
export function isTerminal(cause: WatchFailure, failFast: boolean): boolean {
  if (cause.code === undefined) return false;
  return TERMINAL_CODES.has(cause.code) || (failFast && FAIL_FAST_CODES.has(cause.code));
}

/**
 * The error a `listWatch` Observable fails with, after its status `failed`: for a failure no retry can fix
 * (`TERMINAL_CODES`, a malformed apiVersion, a namespace on a cluster-scoped kind, bad options), and under
 * `failFast` for 401/403/404 and an unknown kind too.
 */
export class ListWatchError extends Error {
  /** Always `'ListWatchError'`. */
  override readonly name = 'ListWatchError';
  constructor(
    /** Why the list or watch failed. */
    readonly failure: WatchFailure,
    what: string,
  ) {
    super(
      `listWatch ${what}: ${failure.code === undefined ? '' : `${failure.code} `}${failure.reason}: ${failure.message}; stopped, not retried`,
    );
  }
}
