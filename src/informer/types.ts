/**
 * The informer's vocabulary: the events handlers receive and the shape of an informer.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import type { Store } from '../store/index.js';
import type { WatchStatus } from '../watch/index.js';
import type { StoreOptions, StoreProblem, WatchProblemReason } from 'rxkube/extend';

/**
 * What an informer's `events$` emits; the controller layer's triggers consume it.
 *
 * Every event carries the `snapshot` it produced (or, for `resync` and a late subscriber's synthetic `added`, the
 * snapshot it was read from), so a handler never needs to call `current()` to see a consistent cache.
 *
 * # Snapshots of a batch
 * Deltas that arrive together (the lines of one network chunk, a relist) are applied as one batch: one Immer
 * `produce`, one snapshot, one `store$` emission. Every event of the batch carries that same snapshot. What a
 * handler can rely on:
 * - The snapshot shows the event's own change: `snapshot.get(key)` is `object` for `added` and `updated`, and
 *   `snapshot.has(key)` is false for `deleted` (a batch is cut before a key it already changed, so a later change of
 *   the same key never hides this one).
 * - Events come in delta order, after the store applied them, and the snapshot is immutable and deep-frozen.
 * - The snapshot is at least as new as every event delivered before this one.
 *
 * What it cannot assume:
 * - That the snapshot shows nothing after this event: it may already hold later changes of *other* keys from the
 *   same batch, whose events are still to come (so `snapshot.size`, `list()` and indexes may run ahead of the
 *   events seen so far), and its `resourceVersion` is the batch's last one.
 * - That consecutive events carry different snapshots, or that every change has a `store$` emission of its own.
 * - That `snapshot === current()`: `current()` may be newer.
 *
 * - `added`: a new object, or a synthetic replay of a cached one for a subscriber that joined late.
 * - `updated`: `old` is the previous cached object.
 * - `deleted`: `object` is the final state (watch delete) or the last known state (`stateUnknown: true`, the object
 *   vanished across a relist; client-go's `DeletedFinalStateUnknown`).
 * - `resync`: a periodic re-delivery of a cached object, for level-triggered re-checks; no API call was made.
 *
 * `fromList: true` marks the events that come from a list rather than a watch: the changes a relist found (the
 * initial list included) and a late subscriber's replay of the cache (client-go's `isInInitialList`). The trigger
 * operators give them, and `resync`, the low priority.
 */
export type InformerEvent<T extends KubernetesObject = KubernetesObject> =
  | {
      /** A new object, or a late subscriber's replay of a cached one. */
      readonly type: 'added';
      /** The object's store key: `namespace/name`, or `name` for cluster-scoped objects. */
      readonly key: string;
      /** The object as cached. */
      readonly object: T;
      /** The cache with this event applied. */
      readonly snapshot: Store<T>;
      /** Present when a list found it (a relist, the initial list) or a late subscriber's replay delivered it. */
      readonly fromList?: true;
    }
  | {
      /** A cached object changed. */
      readonly type: 'updated';
      /** The object's store key. */
      readonly key: string;
      /** The object as it was cached before. */
      readonly old: T;
      /** The object as cached now. */
      readonly object: T;
      /** The cache with this event applied. */
      readonly snapshot: Store<T>;
      /** Present when a relist found the change. */
      readonly fromList?: true;
    }
  | {
      /** A cached object is gone. */
      readonly type: 'deleted';
      /** The object's store key. */
      readonly key: string;
      /** Its final state, or its last known state when `stateUnknown`. */
      readonly object: T;
      /** True when the deletion was inferred from a relist (client-go's `DeletedFinalStateUnknown`). */
      readonly stateUnknown: boolean;
      /** The cache with this event applied. */
      readonly snapshot: Store<T>;
      /** Present when a relist found the object gone (then `stateUnknown` is true too). */
      readonly fromList?: true;
    }
  | {
      /** A periodic re-delivery of a cached object (`resyncPeriod`). */
      readonly type: 'resync';
      /** The object's store key. */
      readonly key: string;
      /** The object as cached. */
      readonly object: T;
      /** The cache it was read from. */
      readonly snapshot: Store<T>;
    };

/** Options of an informer itself (the watch options come on top for `informer()`). */
export interface InformerOptions<T extends KubernetesObject = KubernetesObject> extends StoreOptions<T> {
  /**
   * Re-emit every cached object as `resync` this often, in milliseconds, without an API call. Off when omitted or 0.
   */
  readonly resyncPeriod?: number;
  /**
   * Drives `resyncPeriod` (and the watch's timers for `informer()`). Default `monotonicScheduler` (from `rxkube/extend`) (monotonic
   * `now()`, virtual inside `TestScheduler.run()`).
   */
  readonly scheduler?: SchedulerLike;
}

/**
 * The kinds of object-level problem an informer reports on `problems$`:
 * - from the reflector: `MalformedLine`, `MissingName`, `TransformFailed` (see `WatchProblem`);
 * - from the store: `OutOfOrder` and `IndexerFailed` (see `StoreProblem`), and `StoreFailed` for a delta the store
 *   could not apply at all (the last good snapshot is kept and the informer carries on).
 */
export type InformerProblemReason = WatchProblemReason | StoreProblem['reason'] | 'StoreFailed';

/**
 * One bad object or delta, reported instead of crashing or vanishing. It says nothing about the connection's
 * health: one bad object never makes a healthy informer look broken.
 */
export interface InformerProblem {
  /** What kind of problem it is. */
  readonly reason: InformerProblemReason;
  /** What was wrong, for people. */
  readonly message: string;
  /** How many problems of this reason the running informer has reported so far, this one included. */
  readonly count: number;
  /** The key of the object concerned, when it has one. */
  readonly key?: string;
}

/**
 * A cached, shared view of one kind of object: a stream of events, a stream of snapshots, and the latest snapshot.
 *
 * # Guarantees
 * - Cold and ref-counted: the watch starts when the first subscriber subscribes to any stream and stops (the HTTP
 *   request is aborted) when the last one leaves. Subscribing again starts a fresh watch and an empty store.
 * - `events$` delivers changes in order, after the store applied them. A subscriber that joins while the informer
 *   is running first receives a synthetic `added` for every cached object, then live events, with no gap and no
 *   duplicate (client-go's handlers-added-after-start guarantee), wherever it joins from: at top level or from
 *   inside a callback of any of this informer's streams.
 * - `store$` emits the current snapshot on subscribe, then every new one: one per batch of deltas that arrived
 *   together (see {@link InformerEvent} for what a snapshot of a batch shows), not one per delta.
 * - `synced$` emits the current state on subscribe (`false`, or `true` when already synced), then `true` once.
 * - `status$` is the connection's health only: it replays the latest reflector status, then every new one.
 * - `problems$` reports every object-level problem (malformed lines, objects without a name, failing transforms,
 *   protocol violations, failing indexers, deltas the store could not apply) with a running count per reason, never
 *   swallowed. It replays nothing.
 * - A subscriber whose callback throws does not stop delivery to the others (RxJS reports the error through
 *   `config.onUnhandledError`).
 *
 * # Caveats
 * - When the source errors or completes, every stream errors or completes with it.
 */
export interface Informer<T extends KubernetesObject = KubernetesObject> {
  /** Every change, in order, after the store applied it; a late subscriber first gets the cache as `added`. */
  readonly events$: Observable<InformerEvent<T>>;
  /** The current snapshot on subscribe, then every new one. */
  readonly store$: Observable<Store<T>>;
  /** `false` until the first list has been applied, then `true` for good; the current value on subscribe. */
  readonly synced$: Observable<boolean>;
  /** The connection's health: the latest status on subscribe, then every new one. */
  readonly status$: Observable<WatchStatus>;
  /** Object-level problems, with a running count per reason; nothing is replayed. */
  readonly problems$: Observable<InformerProblem>;
  /**
   * The latest snapshot, synchronously: the Lister. An empty, unsynced store before the first start; after the last
   * subscriber leaves, the last snapshot (until a new subscription starts afresh).
   */
  current(): Store<T>;
}
