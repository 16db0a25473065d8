/**
 * The vocabulary of the store: indexers, the changes a reducer step made, and the problems it reported.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WatchEvent } from '../watch/index.js';

/**
 * Maps an object to the index values it should be found under, e.g. `(pod) => pod.spec?.nodeName`.
 *
 * # Caveats
 * - `null`, `undefined` and duplicates are ignored, so optional fields need no guarding.
 * - An indexer that throws does not lose the object: it is stored, left out of that index only, and the failure is
 *   reported as a {@link StoreProblem} with reason `IndexerFailed`.
 * - Indexers must be pure: the store calls them on insert and again on the old object at update and delete.
 */
export type Indexer<T> = (object: T) => string | null | undefined | Iterable<string | null | undefined>;

/** Index functions by name, declared when the store is created. */
export type Indexers<T> = Readonly<Record<string, Indexer<T>>>;

/** Options fixed for the life of a store and every snapshot derived from it. */
export interface StoreOptions<T> {
  /** Custom indexes, queried with `store.byIndex(name, value)`. The name `namespace` is reserved. */
  readonly indexers?: Indexers<T>;
}

/**
 * One informer-level change made by a reducer step.
 *
 * - `added`: the key was not cached before; also for a `modified` of an unknown key.
 * - `updated`: the key was cached; `old` is the previous object; also for an `added` of a known key (watch replay).
 * - `deleted`: the key is gone. `object` is the final state from a watch `deleted` (`stateUnknown: false`) or, for
 *   objects that vanished across a relist, the last known object (`stateUnknown: true`: the real final state and
 *   the time of deletion are unknown, as with client-go's `DeletedFinalStateUnknown`).
 */
export type StoreChange<T> =
  | {
      /** The key was not cached before. */
      readonly type: 'added';
      /** The object's store key. */
      readonly key: string;
      /** The object as stored. */
      readonly object: T;
    }
  | {
      /** The key was cached and its object replaced. */
      readonly type: 'updated';
      /** The object's store key. */
      readonly key: string;
      /** The object stored before. */
      readonly old: T;
      /** The object stored now. */
      readonly object: T;
    }
  | {
      /** The key is gone. */
      readonly type: 'deleted';
      /** The object's store key. */
      readonly key: string;
      /** Its final state, or the last known one when `stateUnknown`. */
      readonly object: T;
      /** True when the object vanished across a relist. */
      readonly stateUnknown: boolean;
    };

/**
 * Input that broke the reflector's contract or could not be stored, reported instead of crashing or vanishing.
 *
 * - `MissingName`: an object without `metadata.name`; the event is skipped (there is no key to store it under).
 * - `OutOfOrder`: a delta outside the relist protocol (e.g. `listed` without `relistStarted`); it is still applied
 *   as sensibly as possible, as described on `applyWatchEvents`.
 * - `IndexerFailed`: an indexer threw; the object is stored but missing from that index.
 */
export interface StoreProblem {
  /** What kind of problem it is (above). */
  readonly reason: 'MissingName' | 'OutOfOrder' | 'IndexerFailed';
  /** What was wrong, for people. */
  readonly message: string;
  /** The delta that caused it. */
  readonly event: WatchEvent<KubernetesObject>;
}
