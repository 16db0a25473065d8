/**
 * `applyWatchEvents`: the pure reducer from reflector deltas to the next store snapshot and the changes it made.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Immer } from 'immer';
import type { ReflectorDelta, WatchEvent } from '../watch/index.js';
import { Batch, type ListingNode } from './batch.js';
import { Store, storeDataOf, storeFromData, storeIndexersOf, type StoreData } from './store.js';
import type { StoreChange, StoreProblem } from './types.js';
import { freezeWork } from './writes.js';

// A private instance, so that no other module's settings reach it. autoFreeze is off because Immer's generic deep
// walk would visit every node and object a batch adds: the batch freezes exactly what it created instead (new trie
// nodes and index buckets; incoming objects are deep-frozen as they enter), and the root record is frozen below.
const immer = new Immer({ autoFreeze: false });

/** @internal */
interface RelistBuffer<T> {
  readonly newest: ListingNode<T> | null;
}

/**
 * Everything the reducer carries between steps: the published snapshot and, during a relist, the listing so far.
 * Immutable; create one with {@link initialStoreState}.
 */
export interface StoreState<T extends KubernetesObject = KubernetesObject> {
  readonly store: Store<T>;
  /** @internal `null` unless a relist is in progress. */
  readonly relist: RelistBuffer<T> | null;
}

/** The result of one `applyWatchEvents` step. */
export interface StoreStep<T extends KubernetesObject = KubernetesObject> {
  readonly state: StoreState<T>;
  /**
   * The informer-level changes, in the order they happened. Empty when only the resourceVersion moved. A relist
   * swapped into an empty cache makes this list on first read (see `forEachChange`).
   */
  readonly changes: readonly StoreChange<T>[];
  readonly problems: readonly StoreProblem[];
}

/** The reducer state for an empty store (or for `store`, to continue from a snapshot). */
export function initialStoreState<T extends KubernetesObject>(store: Store<T> = Store.empty<T>()): StoreState<T> {
  return { store, relist: null };
}

/**
 * Applies a batch of deltas in one Immer `produce` and reports what changed.
 *
 * # Guarantees
 * - Pure: `state` is not modified; the new state shares every untouched node with it.
 * - One Immer `produce` per batch, over the small root record of the snapshot. Inside it, each delta path-copies
 *   O(log N) trie nodes (one leaf and one branch per level, about log32 N): the cost does not grow with the cache.
 *   A node is copied at most once per batch however many of the batch's deltas touch it, and nodes the batch
 *   created are written in place, so filling an empty store (the first list) builds each node once.
 * - Exactly what the batch created is frozen (new trie nodes, new index buckets; incoming objects are deep-frozen
 *   once, as they enter), so the resulting snapshot is deep-frozen without walking what it shares.
 * - A relist costs O(1) per `listed` and one O(N) diff at `relistDone`, however the events are split into calls.
 * - `added` of a known key reports `updated`; `modified` of an unknown key reports `added` (watches can replay).
 * - `deleted` of an unknown key reports nothing but still advances the resourceVersion.
 * - `bookmark` only moves the resourceVersion.
 * - A relist (`relistStarted`, `listed`…, `relistDone`) may span many calls. The store is untouched until
 *   `relistDone`, then swapped atomically: listed objects not cached before → `added`; cached with a different
 *   resourceVersion → `updated`; same resourceVersion → nothing (the old object is kept); cached and not listed →
 *   `deleted` with `stateUnknown: true` carrying the last known object. `synced` becomes true and stays true.
 * - A second `relistStarted` before `relistDone` restarts the listing (the reflector restarts a list whose
 *   continue token expired).
 * - Objects are deep-frozen in place as they enter, so every change carries frozen objects.
 *
 * # Caveats
 * - Contract violations are applied sensibly and reported as `OutOfOrder` problems, never dropped: `listed` outside a
 *   relist is applied like `modified`; watch deltas inside a relist are applied to the listing;
 *   `relistDone` without `relistStarted` only moves the resourceVersion. A `bookmark` inside a relist is ignored
 *   (`relistDone` sets the version).
 * - An object without `metadata.name` cannot be keyed: it is skipped and reported as `MissingName`.
 * - `status` events are ignored here; the informer routes them to `status$`.
 * - Within one call, all changes belong to the one snapshot it produces: a key changed twice shows only its last
 *   state there. {@link applyWatchBatch} cuts a batch where that would happen, so that its snapshots show every
 *   change exactly.
 */
export function applyWatchEvents<T extends KubernetesObject>(
  state: StoreState<T>,
  events: Iterable<WatchEvent<T>>,
): StoreStep<T> {
  return step(state, (batch) => {
    for (const event of events) batch.apply(event);
  });
}

/** One exact step of {@link applyWatchBatch}: the step, and where the next one starts. */
export interface ExactStoreStep<T extends KubernetesObject = KubernetesObject> extends StoreStep<T> {
  /** The index in `events` of the first delta this step did not apply; `events.length` when it applied them all. */
  readonly next: number;
}

/**
 * Applies as many of `events`, from index `from` on, as one snapshot can show exactly, in one Immer `produce`.
 *
 * # Guarantees
 * - Everything {@link applyWatchEvents} guarantees, for the deltas it applies.
 * - Exact: the step stops before a delta that would change a key it already changed, before a `relistDone` when
 *   it already changed something, and after a `relistDone`. So in the snapshot it produces, every change of the
 *   step shows exactly its own result for its key: the `object` of an `added` or `updated` is what `get(key)`
 *   returns, and the key of a `deleted` is absent. The snapshot may also hold the other changes of the step,
 *   before and after that one (of other keys).
 * - Progress: the first delta from `from` is always applied, so `next > from` whenever `from < events.length`.
 * - Any split of the same deltas into calls (of this function or of `applyWatchEvents`) leads to the same store and
 *   the same changes, in the same order (property-tested).
 *
 * # Caveats
 * - `resourceVersion` is the step's last one: the version after its last delta, not after each change.
 */
export function applyWatchBatch<T extends KubernetesObject>(
  state: StoreState<T>,
  events: readonly ReflectorDelta<T>[],
  from = 0,
): ExactStoreStep<T> {
  let next = from;
  const result = step(state, (batch) => {
    // The first delta is never refused: nothing was changed yet.
    while (next < events.length && batch.apply(events[next]!, true)) next += 1;
  });
  return lazyChanges({ state: result.state, problems: result.problems, next }, changeSourceOf(result));
}

/**
 * Runs `applyDeltas` on a fresh {@link Batch} inside one Immer `produce` over the small root record: the deltas
 * rewrite the tries by path copying on a working copy (a draft of a trie node would cost a Proxy per level and a
 * generic finalize walk); the recipe then puts the new roots into the draft of the root record, so Immer copies
 * that record only, and returns `base` itself when nothing changed.
 */
function step<T extends KubernetesObject>(state: StoreState<T>, applyDeltas: (batch: Batch<T>) => void): StoreStep<T> {
  const base = storeDataOf(state.store);
  const batch = new Batch(state.store, state.relist === null ? undefined : state.relist.newest);
  const data = immer.produce(base, (draft) => {
    applyDeltas(batch);
    freezeWork(batch.work);
    writeRoots(draft as Mutable<StoreData<T>>, base, batch);
  }) as StoreData<T>;
  let store = state.store;
  if (data !== base) {
    if (data.indexes !== base.indexes) Object.freeze(data.indexes);
    store = storeFromData(Object.freeze(data), storeIndexersOf(state.store));
  }
  const relist = batch.relisting ? { newest: batch.listing() } : null;
  return lazyChanges({ state: { store, relist }, problems: batch.problems }, batch);
}

/** Where the changes of a step or an update come from, for {@link forEachChange}. */
interface ChangeSource<T extends KubernetesObject> {
  changeList(): StoreChange<T>[];
  forEachChange(visit: (change: StoreChange<T>) => void): void;
}

const changeSources = new WeakMap<object, ChangeSource<KubernetesObject>>();

function changeSourceOf<T extends KubernetesObject>(result: {
  readonly changes: readonly StoreChange<T>[];
}): ChangeSource<T> {
  return (
    (changeSources.get(result) as ChangeSource<T> | undefined) ?? {
      changeList: () => result.changes as StoreChange<T>[],
      forEachChange: (visit) => result.changes.forEach((change) => visit(change)),
    }
  );
}

/**
 * `result` with a `changes` property that asks `source` for the change list on first read: a relist swapped into an
 * empty cache makes its million `added` changes only if someone reads them. Internal to the store folder.
 */
export function lazyChanges<T extends KubernetesObject, R extends object>(
  result: R,
  source: ChangeSource<T>,
): R & { readonly changes: readonly StoreChange<T>[] } {
  let changes: readonly StoreChange<T>[] | undefined;
  const lazy = Object.defineProperty(result, 'changes', {
    enumerable: true,
    get: () => (changes ??= source.changeList()),
  }) as R & { readonly changes: readonly StoreChange<T>[] };
  changeSources.set(lazy, source as unknown as ChangeSource<KubernetesObject>);
  return lazy;
}

/** Same changes, for another result (a step's, carried into an update). Internal to the store folder. */
export function sameChanges<T extends KubernetesObject, R extends object>(
  result: R,
  from: { readonly changes: readonly StoreChange<T>[] },
): R & { readonly changes: readonly StoreChange<T>[] } {
  return lazyChanges(result, changeSourceOf(from));
}

/**
 * Calls `visit` on each change of a step or an update, in order, without making the list of a lean relist swap
 * (see {@link lazyChanges}): the informer delivers them one by one. @internal
 */
export function forEachChange<T extends KubernetesObject>(
  result: { readonly changes: readonly StoreChange<T>[] },
  visit: (change: StoreChange<T>) => void,
): void {
  changeSourceOf(result).forEachChange(visit);
}

type Mutable<R> = { -readonly [K in keyof R]: R[K] extends object ? Mutable<R[K]> : R[K] };

/** Assigns only what moved: an assignment of the same value would still make Immer copy the record. */
function writeRoots<T extends KubernetesObject>(
  draft: Mutable<StoreData<T>>,
  base: StoreData<T>,
  batch: Batch<T>,
): void {
  const { work } = batch;
  if (work.objects !== base.objects) draft.objects = work.objects as Mutable<StoreData<T>>['objects'];
  if (work.size !== base.size) draft.size = work.size;
  for (const name of Object.keys(work.indexes)) {
    if (work.indexes[name] !== base.indexes[name]) draft.indexes[name] = work.indexes[name] as never;
  }
  if (batch.resourceVersion !== base.resourceVersion) draft.resourceVersion = batch.resourceVersion;
  if (batch.synced !== base.synced) draft.synced = batch.synced;
  if (work.namespacesFollowKeys !== base.namespacesFollowKeys) draft.namespacesFollowKeys = work.namespacesFollowKeys;
}
