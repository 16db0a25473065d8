/**
 * The views' vocabulary: what a view reads, what it is, and the rows the built-in views hold.
 */
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import type { Informer } from '../informer/index.js';
import type { Store } from '../store/index.js';
import type { Indexers, StoreChange } from 'rxkube/extend';

/**
 * What a view reads: anything with a stream of store snapshots. An {@link Informer} is one, and so is a
 * `views.View`, so views stack (a join over a join).
 *
 * The view subscribes to `store$` while it runs, and expects what an informer's `store$` promises: the current
 * snapshot on subscribe, then every new one, each derived from the one before.
 */
export interface ViewInput<T extends KubernetesObject = KubernetesObject> {
  /** The current snapshot on subscribe, then every new one. */
  readonly store$: Observable<Store<T>>;
}

/**
 * One snapshot of a store and what changed since the one before it; what `views.diffSnapshots` and a view's
 * `changes$` emit.
 */
export interface SnapshotDiff<T extends KubernetesObject = KubernetesObject> {
  /** The snapshot. */
  readonly snapshot: Store<T>;
  /** The snapshot before it on this stream; `undefined` for the first one (then every key counts as `added`). */
  readonly previous: Store<T> | undefined;
  /**
   * Every key whose object differs from `previous` (see `diffStores`): `added`, `updated` (with `old`), `deleted`
   * (with the last object, `stateUnknown: true`). Empty when only `synced` or `resourceVersion` moved.
   */
  readonly changes: readonly StoreChange<T>[];
}

/**
 * A derived, incrementally maintained cache over one or more inputs: an {@link Informer} in every respect, plus
 * `changes$`.
 *
 * # Guarantees
 * - It is an `Informer<V>`: `current()` is its Lister (so a view is a reconcile `lookup`), `events$` emits
 *   `added`/`updated`/`deleted` per key with the snapshot they made, a late subscriber first gets every row as
 *   `added`, `store$` replays the current snapshot, and views, triggers (`toKeys`, `mapKeys`, `views.toJoinKeys`),
 *   predicates and `controller({ for: view })` take it as they take an informer.
 * - Snapshots are `Store`s: immutable, deep-frozen, structurally shared; `get`, `list({ namespace,
 *   labelSelector })`, `byIndex`, `size`, `keys()`; rows are keyed like objects (`namespace/name`), so a row's
 *   `metadata` spells its key.
 * - A step writes its rows to a log, not to a trie: a snapshot's contents (its trie and indexes) are built on its
 *   first read, from the last snapshot built, replaying the row writes since (at most 256; reading every snapshot
 *   in order costs what building each one at once would). A snapshot read late, in any order, shows its own rows.
 *   When nobody read a snapshot during the last 256 row writes, a view of at most 1,024 rows folds its log by
 *   copying its rows (a reference each), and the next read builds the snapshot bottom-up from that copy.
 * - `synced` (and `synced$`): the view stays empty and unsynced until every input's snapshot is synced, then shows
 *   every row at once (one snapshot, every row `added`), and stays synced.
 * - Incremental: each input step is read as the changes the input published with it (an informer's or a view's
 *   own; for any other input, or a step read late under `coalesce`, as the diff between the two snapshots, see
 *   `diffStores`, which skips everything they share), so the work per input change is proportional to what
 *   changed (the changed objects, and the rows they touch), never to the size of the inputs or of the view.
 * - Consistency (what a snapshot of a view shows): every snapshot equals the same view computed from scratch over
 *   one published snapshot of each input. Each input is seen whole, one of its own snapshots at a time: never part
 *   of one of its steps (an informer applies a batch of deltas as one step, except where it must cut it; see
 *   `InformerEvent`). Inputs are read as each gets there: a Pod naming a Node the Node informer has not delivered
 *   yet is held, and appears in that Node's row when the Node does. See `views.ViewOptions.coalesce` for the one
 *   way to read several inputs' changes together.
 * - Ref-counted and cold, as an informer: the view subscribes to its inputs when its first subscriber arrives,
 *   and leaves them (its state dropped) when the last one leaves.
 * - Bad results of user functions (a key function that throws, a projection that returns something that is not
 *   keyed as its source) are reported on `problems$` as `TransformFailed` with the key concerned; the object is
 *   left out of the view, and the view carries on. Nothing is dropped silently.
 *
 * # Caveats
 * - `status$` emits nothing: a view has no connection of its own; its inputs' `status$` tell their health.
 * - `resourceVersion` of a view snapshot is always `''`: a view combines versions that cannot be compared.
 * - An unread snapshot keeps alive the rows replaced since the last snapshot built (at most 256 of them).
 * - A view is only as live as its subscription: `current()` of a view nobody subscribes to is its last snapshot.
 *   Subscribe (a controller's triggers from the view, or `view.store$`) for as long as you read it.
 */
export interface View<V extends KubernetesObject = KubernetesObject> extends Informer<V> {
  /**
   * One emission per snapshot of the view: the snapshot and which keys changed since the one before (the first
   * emission, on subscribe, holds every row as `added`). One emission per view step rather than one per key, so a
   * subscriber pays once per step; `store$.pipe(sampleTime(ms), diffSnapshots())` gives the same for sampled
   * snapshots, at the cost of what changed between two samples.
   */
  readonly changes$: Observable<SnapshotDiff<V>>;
}

/** Options every view takes. */
export interface ViewOptions<V extends KubernetesObject> {
  /** Custom indexes on the view's snapshots, queried with `byIndex` (the namespace index is built in). */
  readonly indexers?: Indexers<V>;
  /**
   * Gather the input snapshots that arrive before `coalesce` next runs an action into one view step: one snapshot
   * reflecting every input's latest. Default: none, one view step per input snapshot, synchronously.
   *
   * With `asapScheduler`, changes that reach several inputs in one synchronous burst (a transport that delivers
   * two watches' chunks together, a test that feeds several informers in one go) land in one view snapshot, and a
   * burst of input steps costs one view step (the diff from the last snapshot read to the latest one covers them
   * all). It does not wait for anything that has not arrived: no view can know that an input is about to deliver
   * something.
   */
  readonly coalesce?: SchedulerLike;
}

/**
 * What a join key function may return: one key, several (a right object in several groups), or none (`null`,
 * `undefined`, and `''`, which no object is named).
 */
export type JoinKeys = string | null | undefined | Iterable<string | null | undefined>;

/**
 * One row of a join: a left object and the right objects that join it.
 *
 * # Guarantees
 * - `metadata` is the left object's own `metadata` (the same object), so a row is keyed, namespaced and labelled as
 *   its left object: `list({ namespace, labelSelector })` on a join view selects by the left objects, and owner
 *   references on it lead to the left object's owners (which is what lets `views.owned` stack).
 * - `right` is a `Store` of the group (the namespace index included): `right.size`, `right.get(key)`,
 *   `right.list({ namespace })`; it is shared with every other row of the same join key, and with the next
 *   snapshot when the group did not change. It is marked synced; its `resourceVersion` is `''`.
 * - `right` is the group as it was in the snapshot the row belongs to, however late it is read: a snapshot kept
 *   while the group changes goes on showing its own group (property-tested).
 *
 * # Caveats
 * - `right` is a plain property holding a `Store` whose contents are built when it is first read (`size`, `get`,
 *   iteration, …): a view whose groups nobody reads pays for none of them. The first read of a group's version
 *   replays the writes made to the group since the last version built of it (at most 32), so reading every version
 *   costs what building each one eagerly would. A group of at most 128 right objects of which no version was read
 *   during its last 32 writes folds its log by copying its members; a read after that builds the group bottom-up.
 * - A row is not a Kubernetes object: it has no `apiVersion` or `kind`; write the `left` object, never the row.
 */
export interface JoinRow<L extends KubernetesObject = KubernetesObject, R extends KubernetesObject = KubernetesObject> {
  /** The left object's metadata: the row's identity. */
  readonly metadata: V1ObjectMeta;
  /** The left object (a Node, an owner). */
  readonly left: L;
  /** The right objects that join it (the Node's Pods, the owner's dependents), keyed by their own keys. */
  readonly right: Store<R>;
}

/**
 * One group of an aggregate: how many objects it counts and the sums of their values.
 *
 * # Guarantees
 * - Keyed by its group key: `metadata.namespace` and `metadata.name` spell it (`default/Running` has namespace
 *   `default` and name `Running`), so `list({ namespace: 'default' })` on the view returns that namespace's groups.
 * - `count` ≥ 1: a group whose count falls to 0 leaves the view.
 */
export interface AggregateRow<S extends string = string> {
  /** The group key, spelt as an object's (`namespace/name`, or `name`). */
  readonly metadata: {
    /** The group key's name part: the whole key when the group key has no `/`. */
    readonly name: string;
    /** The group key's part before its `/`, absent for a key without one. */
    readonly namespace?: string;
  };
  /** How many objects are in the group. */
  readonly count: number;
  /** Per sum name, the sum of its value over the group's objects. */
  readonly sums: Readonly<Record<S, number>>;
}
