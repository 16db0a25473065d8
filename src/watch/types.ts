import type { KubernetesObject } from '@kubernetes/client-node';
// `WatchStatus` is exported from `rxkube` and these events from `rxkube/extend`: named by the package, so each
// entry's API report lists it as an import.
import type { WatchStatus } from 'rxkube';

/** Re-exported so that watch users name resources without importing the resources layer. */
export type { ResourceRef } from '../resources/index.js';
export type { WatchFailure, WatchStatus } from './status.js';

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

/**
 * A whole listing's `listed` events, as the reflector's pages: what `listWatchBatches` puts between `relistStarted`
 * and `relistDone` instead of an event object per item, so that an informer's first list of a million objects does
 * not also hold a million event objects and their array at its peak (about 40 MB). `listWatch` expands it into its
 * `listed` events, so it never reaches a user.
 * @internal
 */
export interface ListedPages<T extends KubernetesObject = KubernetesObject> {
  /** The listed objects of a relist in progress, in listed order. */
  readonly type: 'listedPages';
  /** The list pages, each a non-empty array of objects as `listed` events would carry them. */
  readonly pages: readonly (readonly T[])[];
}

/** What the reflector emits to an informer: a {@link WatchEvent}, or a relist's objects as {@link ListedPages}. @internal */
export type ReflectorDelta<T extends KubernetesObject = KubernetesObject> = WatchEvent<T> | ListedPages<T>;

/** The deltas of {@link WatchEvent}: everything except `status` and `problem`. */
export type WatchDelta<T extends KubernetesObject = KubernetesObject> = Exclude<
  WatchEvent<T>,
  {
    /** The two non-delta event types. */
    type: 'status' | 'problem';
  }
>;

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
