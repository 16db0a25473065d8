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
 * - `status` reports the reflector's health; it never changes the cache.
 */
export type WatchEvent<T extends KubernetesObject = KubernetesObject> =
  | { readonly type: 'relistStarted' }
  | { readonly type: 'listed'; readonly object: T }
  | { readonly type: 'relistDone'; readonly resourceVersion: string }
  | { readonly type: 'added'; readonly object: T }
  | { readonly type: 'modified'; readonly object: T }
  | { readonly type: 'deleted'; readonly object: T }
  | { readonly type: 'bookmark'; readonly resourceVersion: string }
  | { readonly type: 'status'; readonly status: WatchStatus };

/** The deltas of {@link WatchEvent}: everything except `status`. */
export type WatchDelta<T extends KubernetesObject = KubernetesObject> = Exclude<WatchEvent<T>, { type: 'status' }>;

/**
 * The reflector's health, as reported on `status$`.
 *
 * `error` and `backingOff` carry the cause so that 401/403/404 and malformed input are visible to operators rather
 * than swallowed; the reflector keeps retrying after reporting them unless the caller asked for `failFast`.
 */
export type WatchStatus =
  | { readonly state: 'connecting' }
  | { readonly state: 'listing'; readonly page: number }
  | { readonly state: 'watching'; readonly resourceVersion: string }
  | { readonly state: 'backingOff'; readonly delayMs: number; readonly attempt: number; readonly cause: WatchFailure }
  | { readonly state: 'error'; readonly cause: WatchFailure };

/**
 * Why a list or watch failed. `code` is the HTTP status or Status code when there was one; `reason` is the
 * Kubernetes `Status.reason` (e.g. `Expired`, `Forbidden`) or a local reason (`MalformedLine`, `DeadConnection`,
 * `NetworkError`, `MissingName`).
 */
export interface WatchFailure {
  readonly reason: string;
  readonly message: string;
  readonly code?: number;
  /** Seconds from a `Retry-After` header, when the server sent one. */
  readonly retryAfterSeconds?: number;
  /**
   * For bad input (`MalformedLine`, `MissingName`, `TransformFailed`): how many such inputs this listWatch
   * subscription has seen so far, this one included. (Added by the listWatch implementation; optional.)
   */
  readonly count?: number;
}
