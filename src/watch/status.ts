/**
 * The reflector's connection health (exported from `rxkube`: informers report it). Its events are in `./types.ts`.
 */

/**
 * The health of the reflector's connection to the API server, and nothing else.
 *
 * - `connecting`: a list or watch request is on its way.
 * - `listing`: list page `page` was asked for (or, for a streaming list, the server accepted the watch that carries
 *   the initial events).
 * - `watching`: the server accepted the watch (its response headers arrived with a 2xx status).
 * - `error`: a request failed; `cause` says why (401/403/404 included). A retry follows: at once for a 410 Expired
 *   (a relist), after `backingOff` otherwise.
 * - `backingOff`: the next attempt waits `delayMs`; `cause` is what it retries.
 * - `failed`: the reflector stopped for good on `cause`, a failure no retry can fix (a 400 Bad Request, a 422, a
 *   405, 406 or 414, a malformed apiVersion: see `TERMINAL_CODES`) or one that `failFast` makes fatal. It is the
 *   last status; the stream errors with a `ListWatchError` right after.
 *
 * Problems with single objects (malformed lines, objects without a name, failing transforms) are not health: they
 * are `problem` events, so one bad object never makes a healthy watch look broken.
 */
export type WatchStatus =
  | {
      /** A list or watch request is on its way. */
      readonly state: 'connecting';
    }
  | {
      /** A list page was asked for. */
      readonly state: 'listing';
      /** The page number, from 1. */
      readonly page: number;
    }
  | {
      /** The server accepted the watch. */
      readonly state: 'watching';
      /** The resourceVersion the watch started from. */
      readonly resourceVersion: string;
    }
  | {
      /** Waiting before the next attempt. */
      readonly state: 'backingOff';
      /** How long the wait is, ms. */
      readonly delayMs: number;
      /** The number of consecutive failed attempts so far. */
      readonly attempt: number;
      /** The failure being retried. */
      readonly cause: WatchFailure;
    }
  | {
      /** A request failed; a retry follows. */
      readonly state: 'error';
      /** Why it failed. */
      readonly cause: WatchFailure;
    }
  | {
      /** The reflector stopped for good; the stream errors next. */
      readonly state: 'failed';
      /** Why it stopped. */
      readonly cause: WatchFailure;
    };

/**
 * Why a request failed. `code` is the HTTP status or Status code when there was one; `reason` is the Kubernetes
 * `Status.reason` (e.g. `Expired`, `Forbidden`) or a local reason (`NetworkError`, `DeadConnection`, `ListTimeout`,
 * `UnknownResource`, `WatchClosedEarly`, or the reason of the bad input that made the reflector reconnect).
 */
export interface WatchFailure {
  /** The Kubernetes `Status.reason` or a local reason (above). */
  readonly reason: string;
  /** What happened, for people. */
  readonly message: string;
  /** The HTTP status or Status code, when there was one. */
  readonly code?: number;
  /** Seconds from a `Retry-After` header, when the server sent one. */
  readonly retryAfterSeconds?: number;
  /**
   * The Node.js error code of a network failure, when it had one: `ECONNREFUSED`, `ENOTFOUND` (DNS),
   * `DEPTH_ZERO_SELF_SIGNED_CERT` or `ERR_TLS_CERT_ALTNAME_INVALID` (TLS), `ECONNRESET`. It tells causes apart that
   * share the reason `NetworkError`.
   */
  readonly errorCode?: string;
}
