/**
 * `applyWatchEvents`: the pure reducer from reflector deltas to the next store snapshot and the changes it made.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Immer, enableMapSet, type Draft } from 'immer';
import type { WatchEvent } from '../watch/index.js';
import { deepFreeze } from './deep-freeze.js';
import { trieEntries, trieGet } from './hash-trie.js';
import { objectKey } from './object-key.js';
import { Store, type StoreData } from './store.js';
import type { StoreChange, StoreProblem } from './types.js';
import { putObject, removeObject } from './writes.js';

enableMapSet();
// A private instance: autoFreeze is our guarantee, so another module's setAutoFreeze(false) must not reach it.
const immer = new Immer({ autoFreeze: true });

/**
 * The listing so far of a relist that has not reached `relistDone`, newest first. A persistent linked list: one
 * `listed` costs O(1) and shares everything before it, so a relist streamed one event per step stays linear.
 * `object: null` records a watch deletion received (out of protocol) during the relist. @internal
 */
interface ListingNode<T> {
  readonly key: string;
  readonly object: T | null;
  readonly next: ListingNode<T> | null;
}

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

/** The result of one {@link applyWatchEvents} step. */
export interface StoreStep<T extends KubernetesObject = KubernetesObject> {
  readonly state: StoreState<T>;
  /** The informer-level changes, in the order they happened. Empty when only the resourceVersion moved. */
  readonly changes: readonly StoreChange<T>[];
  readonly problems: readonly StoreProblem[];
}

/** The reducer state for an empty store (or for `store`, to continue from a snapshot). */
export function initialStoreState<T extends KubernetesObject>(store: Store<T> = Store.empty<T>()): StoreState<T> {
  return { store, relist: null };
}

interface Write<T extends KubernetesObject> {
  readonly object: T | null;
  readonly event: WatchEvent<T>;
}

/**
 * Applies a batch of deltas in one Immer `produce` and reports what changed.
 *
 * # Guarantees
 * - Pure: `state` is not modified; the new state shares every untouched node with it.
 * - One Immer `produce` per batch, copying O(log N) trie nodes per touched key: the cost does not grow with the
 *   cache. (Filling an empty store, i.e. the first list, writes plain nodes and freezes them instead: same result,
 *   without the drafts' overhead.)
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
 * - Within one batch, all changes belong to the one snapshot the batch produces.
 */
export function applyWatchEvents<T extends KubernetesObject>(
  state: StoreState<T>, events: Iterable<WatchEvent<T>>,
): StoreStep<T> {
  const base = state.store.data;
  const overlay = new Map<string, Write<T>>();
  const changes: StoreChange<T>[] = [];
  const problems: StoreProblem[] = [];
  let resourceVersion = base.resourceVersion;
  let synced = base.synced;
  let relisting = state.relist !== null;
  let relistBase: ListingNode<T> | null = state.relist?.newest ?? null;
  let relistLocal = new Map<string, T | null>();

  const cached = (key: string): T | undefined => {
    const write = overlay.get(key);
    return write === undefined ? trieGet(base.objects, key) : write.object ?? undefined;
  };
  const report = (reason: StoreProblem['reason'], message: string, event: WatchEvent<T>): void => {
    problems.push({ reason, message, event: event as WatchEvent<KubernetesObject> });
  };
  const keyOf = (event: WatchEvent<T> & { object: T }): string | undefined => {
    try {
      return objectKey(event.object);
    } catch (error) {
      report('MissingName', (error as Error).message, event);
      return undefined;
    }
  };
  const upsert = (key: string, object: T, event: WatchEvent<T>): void => {
    const old = cached(key);
    overlay.set(key, { object, event });
    changes.push(old === undefined ? { type: 'added', key, object } : { type: 'updated', key, old, object });
  };
  const advance = (object: T): void => {
    const version = object.metadata?.resourceVersion;
    if (typeof version === 'string' && version !== '') resourceVersion = version;
  };
  const finishRelist = (event: WatchEvent<T>): void => {
    const final = materialize(relistBase, relistLocal);
    const listed = (key: string): boolean => (final.get(key) ?? null) !== null;
    const listing: [string, T][] = [];
    for (const [key, object] of final) if (object !== null) listing.push([key, object]);
    const vanished: [string, T][] = [];
    for (const [key, object] of trieEntries(base.objects)) {
      if (!overlay.has(key) && !listed(key)) vanished.push([key, object]);
    }
    for (const [key, write] of overlay) if (write.object !== null && !listed(key)) vanished.push([key, write.object]);
    for (const [key, object] of listing) {
      const old = cached(key);
      if (old !== undefined && sameVersion(old, object)) continue;
      upsert(key, object, event);
    }
    for (const [key, object] of vanished) {
      overlay.set(key, { object: null, event });
      changes.push({ type: 'deleted', key, object, stateUnknown: true });
    }
  };

  for (const event of events) {
    switch (event.type) {
      case 'status':
        break;
      case 'relistStarted':
        relisting = true;
        relistBase = null;
        relistLocal = new Map();
        break;
      case 'listed': {
        const key = keyOf(event);
        if (key === undefined) break;
        deepFreeze(event.object);
        if (relisting) {
          relistLocal.set(key, event.object);
        } else {
          report('OutOfOrder', `listed ${key} outside a relist; applied as modified`, event);
          upsert(key, event.object, event);
          advance(event.object);
        }
        break;
      }
      case 'relistDone':
        if (relisting) {
          finishRelist(event);
          synced = true;
          relisting = false;
          relistBase = null;
          relistLocal = new Map();
        } else {
          report('OutOfOrder', 'relistDone without relistStarted; only the resourceVersion moved', event);
        }
        resourceVersion = event.resourceVersion;
        break;
      case 'added':
      case 'modified':
      case 'deleted': {
        const key = keyOf(event);
        if (key === undefined) break;
        deepFreeze(event.object);
        if (relisting) {
          report('OutOfOrder', `${event.type} ${key} during a relist; applied to the listing`, event);
          relistLocal.set(key, event.type === 'deleted' ? null : event.object);
          break;
        }
        if (event.type !== 'deleted') {
          upsert(key, event.object, event);
        } else if (cached(key) !== undefined) {
          overlay.set(key, { object: null, event });
          changes.push({ type: 'deleted', key, object: event.object, stateUnknown: false });
        }
        advance(event.object);
        break;
      }
      case 'bookmark':
        if (!relisting) resourceVersion = event.resourceVersion;
        break;
    }
  }

  const relist = relisting ? { newest: extendListing(relistBase, relistLocal) } : null;
  const unchanged = overlay.size === 0 && resourceVersion === base.resourceVersion && synced === base.synced;
  const store = unchanged ? state.store : commit(state.store, overlay, resourceVersion, synced, problems);
  return { state: { store, relist }, changes, problems };
}

/** Same object, or both carry the same non-empty resourceVersion. */
function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  if (a === b) return true;
  const version = a.metadata?.resourceVersion;
  return typeof version === 'string' && version !== '' && version === b.metadata?.resourceVersion;
}

function extendListing<T>(newest: ListingNode<T> | null, local: ReadonlyMap<string, T | null>): ListingNode<T> | null {
  let head = newest;
  for (const [key, object] of local) head = Object.freeze({ key, object, next: head });
  return head;
}

/** The listing as a Map in first-listed order, later entries (and then `local`) winning for a repeated key. */
function materialize<T>(newest: ListingNode<T> | null, local: ReadonlyMap<string, T | null>): Map<string, T | null> {
  const nodes: ListingNode<T>[] = [];
  for (let node = newest; node !== null; node = node.next) nodes.push(node);
  const result = new Map<string, T | null>();
  for (let i = nodes.length - 1; i >= 0; i--) result.set(nodes[i]!.key, nodes[i]!.object);
  for (const [key, object] of local) result.set(key, object);
  return result;
}

function commit<T extends KubernetesObject>(
  store: Store<T>, overlay: ReadonlyMap<string, Write<T>>, resourceVersion: string, synced: boolean,
  problems: StoreProblem[],
): Store<T> {
  const base = store.data;
  const recipe = (draft: Draft<StoreData<T>>): void => {
    for (const [key, { object, event }] of overlay) {
      const old = trieGet(base.objects, key);
      if (object === old) continue;
      if (object === null) {
        if (old !== undefined) removeObject(draft, store.indexers, key, old);
        continue;
      }
      for (const { name, error } of putObject(draft, store.indexers, key, object, old)) {
        problems.push({
          reason: 'IndexerFailed',
          message: `indexer "${name}" threw on ${key}; the object is stored but not in that index: ${error.message}`,
          event: event as WatchEvent<KubernetesObject>,
        });
      }
    }
    draft.resourceVersion = resourceVersion;
    draft.synced = synced;
  };
  // Filling an empty store (the first list) has nothing to share, so Immer's drafts would only add overhead: the
  // same writes go to plain nodes, which are then frozen. Every other batch goes through Immer's produce.
  if (base.size === 0) {
    const fresh = { ...base, indexes: { ...base.indexes } } as Draft<StoreData<T>>;
    recipe(fresh);
    return Store.fromData(deepFreeze(fresh) as StoreData<T>, store.indexers);
  }
  return Store.fromData(immer.produce(base, recipe) as StoreData<T>, store.indexers);
}
