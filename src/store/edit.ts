/**
 * `diffStores` and `editStore`: reading what changed between two snapshots, and writing a snapshot directly, for
 * code that derives stores from stores (the views) rather than from reflector deltas.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { deepFreeze } from '../objects/index.js';
import { objectsDiff, objectsGet } from './objects-trie.js';
import { Store as StoreClass, storeDataOf, storeFromData, storeIndexersOf, type StoreData } from './store.js';
import type { Store } from 'rxkube';
import type { StoreChange } from './types.js';
import {
  freezeWork,
  indexerList,
  putObject,
  removeObject,
  workingCopy,
  type IndexFailure,
  type IndexerList,
  type WorkingData,
} from './writes.js';

/**
 * What changed from `before` to `after`, key by key: `added` for a key only `after` holds, `deleted` for one only
 * `before` holds, `updated` for one whose object is not the same object in both.
 *
 * # Guarantees
 * - Exact, whatever the two snapshots: applying the changes to `before` gives `after`'s objects.
 * - Proportional to what changed when `after` was derived from `before` (by an informer, a view, or
 *   `editStore`): subtrees the two snapshots share are skipped unread, so a change of k keys in a store of N
 *   objects costs O(k · log N), not O(N). Two unrelated snapshots (an informer that started afresh) are compared
 *   by reading both.
 * - Objects are compared by identity: snapshots share the objects they did not change, so an object that is not
 *   the same object was replaced.
 *
 * # Caveats
 * - A `deleted` change carries the object as `before` held it, which is all a diff can know: `stateUnknown` is
 *   always `true` (the final state, and whether a watch deletion or a relist removed it, are unknown).
 * - The order of the changes is the hash order of their keys, not the order in which they happened.
 * - Indexes, `resourceVersion` and `synced` are not compared; read them from the snapshots.
 */
export function diffStores<T extends KubernetesObject>(before: Store<T>, after: Store<T>): StoreChange<T>[] {
  const changes: StoreChange<T>[] = [];
  if (before === after) return changes;
  objectsDiff(storeDataOf(before).objects, storeDataOf(after).objects, (key, old, object) => {
    if (old === undefined) changes.push({ type: 'added', key, object: object! });
    else if (object === undefined) changes.push({ type: 'deleted', key, object: old, stateUnknown: true });
    else changes.push({ type: 'updated', key, old, object });
  });
  return changes;
}

/** Writes to one snapshot, made into a new snapshot by {@link StoreEditor.commit}. See {@link editStore}. */
export interface StoreEditor<T extends KubernetesObject> {
  /** The object under `key` as edited so far. */
  get(key: string): T | undefined;
  /** How many objects the edited store holds so far. */
  readonly size: number;
  /** Puts `object` (deep-frozen here if it is not yet) under `key`; indexes follow. Returns the object it replaced. */
  set(key: string, object: T): T | undefined;
  /** Removes `key`; returns the object it held, `undefined` when there was none. */
  delete(key: string): T | undefined;
  /**
   * The new snapshot. It is the base snapshot itself when nothing changed. The editor must not be used after.
   * `synced` and `resourceVersion` default to the base snapshot's.
   */
  commit(options?: { readonly synced?: boolean; readonly resourceVersion?: string }): Store<T>;
  /** Indexers that threw since the editor was made (the object is stored, left out of that index). */
  readonly failures: readonly IndexFailure[];
}

/**
 * An editor over `store`: a transient working copy that path-copies what it touches and freezes exactly that at
 * `commit`, as one reducer step does, without Immer and without reflector deltas.
 *
 * # Guarantees
 * - `store` is never modified; the committed snapshot shares every node the edits did not touch.
 * - k edits cost O(k · log N), each touched trie node copied once per editor.
 * - The result is deep-frozen and keeps `store`'s indexers (the namespace index and any custom one).
 *
 * # Caveats
 * - Keys are taken as given: the caller makes them agree with the objects (`objectKey`) if it wants them to.
 * @internal
 */
export function editStore<T extends KubernetesObject>(store: Store<T>): StoreEditor<T> {
  return new Editor(store);
}

/** {@link StoreEditor}'s implementation: a class, so that an editor costs one object (editors are made per step). */
class Editor<T extends KubernetesObject> implements StoreEditor<T> {
  readonly failures: IndexFailure[] = [];
  private readonly base: StoreData<T>;
  private readonly indexers: IndexerList<T>;
  private readonly work: WorkingData<T>;
  private committed = false;

  constructor(private readonly store: Store<T>) {
    this.base = storeDataOf(store);
    this.indexers = indexerList(storeIndexersOf(store));
    this.work = workingCopy(this.base);
  }

  get size(): number {
    return this.work.size;
  }

  get(key: string): T | undefined {
    return objectsGet(this.work.objects, key);
  }

  set(key: string, object: T): T | undefined {
    this.writable();
    return putObject(this.work, this.indexers, key, deepFreeze(object), this.failures);
  }

  delete(key: string): T | undefined {
    this.writable();
    const old = objectsGet(this.work.objects, key);
    if (old !== undefined) removeObject(this.work, this.indexers, key, old);
    return old;
  }

  commit(options: { readonly synced?: boolean; readonly resourceVersion?: string } = {}): Store<T> {
    this.writable();
    this.committed = true;
    const { base, work } = this;
    const synced = options.synced ?? base.synced;
    const resourceVersion = options.resourceVersion ?? base.resourceVersion;
    let indexesMoved = false;
    for (const name in work.indexes) if (work.indexes[name] !== base.indexes[name]) indexesMoved = true;
    if (
      work.objects === base.objects &&
      !indexesMoved &&
      synced === base.synced &&
      resourceVersion === base.resourceVersion &&
      work.namespacesFollowKeys === base.namespacesFollowKeys
    ) {
      return this.store;
    }
    freezeWork(work);
    const data: StoreData<T> = {
      objects: work.objects,
      size: work.size,
      indexes: indexesMoved ? Object.freeze(work.indexes) : base.indexes,
      resourceVersion,
      synced,
      namespacesFollowKeys: work.namespacesFollowKeys,
    };
    return storeFromData(Object.freeze(data), storeIndexersOf(this.store));
  }

  private writable(): void {
    if (this.committed) throw new Error('editStore: the editor was already committed');
  }
}

/** An empty snapshot with the built-in namespace index only, marked synced: the start of a derived store. */
export function emptySyncedStore<T extends KubernetesObject>(): Store<T> {
  return editStore(StoreClass.empty<T>()).commit({ synced: true });
}
