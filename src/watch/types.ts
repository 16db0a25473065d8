import type { KubernetesObject } from '@kubernetes/client-node';

/** Re-exported so that watch users name resources without importing the resources layer. */
export type { ResourceRef } from '../resources/index.js';

/**
 * One step of the reflector's output, in the order the store must apply them.
 *
 * # Guarantees
 * - A relist is always the sequence `relistStarted`, zero or more `listed`, `relistDone`; no other delta is
 *   interleaved inside it. The store swaps its contents atomically at `relistDone`; objects cached before the relist
 *   and absent from it become tombstones (`deleted` with `stateUnknown: true`) at that point.
 * - `added`, `modified` and `deleted` come from the watch and are in resourceVersion order.
 * - `bookmark` only advances the resourceVersion; it carries no object.
 * - `status` reports the connection's health; it never changes the cache.
 * - `problem` reports one bad input (a malformed line, an object without a name, a transform that threw), with a
 *   running count; it never changes the cache and says nothing about the connection's health.
 */
export type WatchEvent<T extends KubernetesObject = KubernetesObject> =
  | {
    /** A list (the first one, or a relist) began; `listed` events and then `relistDone` follow. */
    readonly type: 'relistStarted';
  }
  | {
    /** One item of the list in progress. */
    readonly type: 'listed';
    /** The listed object, after `transform`. */
    readonly object: T;
  }
  | {
    /** The list is complete: the store swaps its contents now. */
    readonly type: 'relistDone';
    /** The list's resourceVersion, where the watch starts. */
    readonly resourceVersion: string;
  }
  | {
    /** A watch `ADDED` event. */
    readonly type: 'added';
    /** The object as the server sent it, after `transform`. */
    readonly object: T;
  }
  | {
    /** A watch `MODIFIED` event. */
    readonly type: 'modified';
    /** The new state of the object, after `transform`. */
    readonly object: T;
  }
  | {
    /** A watch `DELETED` event. */
    readonly type: 'deleted';
    /** The object's final state, after `transform`. */
    readonly object: T;
  }
  | {
    /** A watch `BOOKMARK` event. */
    readonly type: 'bookmark';
    /** The resourceVersion the watch has reached. */
    readonly resourceVersion: string;
  }
  | {
    /** A change of connection health. */
    readonly type: 'status';
    /** The new health. */
    readonly status: WatchStatus;
  }
  | {
    /** One bad input, skipped. */
    readonly type: 'problem';
    /** What was wrong, with a running count. */
    readonly problem: WatchProblem;
  };

/** The deltas of {@link WatchEvent}: everything except `status` and `problem`. */
export type WatchDelta<T extends KubernetesObject = KubernetesObject> = Exclude<WatchEvent<T>, {
  /** The two non-delta event types. */
  type: 'status' | 'problem';
}>;

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

/** The kinds of bad input the reflector reports as {@link WatchProblem}s. */
export type WatchProblemReason = 'MalformedLine' | 'MissingName' | 'TransformFailed';

/**
 * One bad input, reported and counted instead of crashing or vanishing.
 *
 * - `MalformedLine`: a watch line that is not a watch event; the watch is resumed from the last good
 *   resourceVersion.
 * - `MissingName`: an object without `metadata.name` (no key to cache it under); a listed one is skipped, a watched
 *   one makes the watch resume from the last good resourceVersion.
 * - `TransformFailed`: the user's `transform` threw, returned no object, or returned one that cannot be deep-frozen
 *   (a getter that throws); the message says which. The object is used untransformed (a deletion is still a
 *   deletion), so the cache never claims a state the server has left.
 */
export interface WatchProblem {
  /** What kind of bad input it was. */
  readonly reason: WatchProblemReason;
  /** What was wrong, for people. */
  readonly message: string;
  /** How many problems of this reason this listWatch subscription has reported so far, this one included. */
  readonly count: number;
  /** The key of the object concerned, when it has one. */
  readonly key?: string;
}
