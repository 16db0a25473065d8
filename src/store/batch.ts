/**
 * One reducer step in progress: the deltas of a batch applied, in order, to a working copy of the snapshot.
 * `applyWatchEvents` runs it inside an Immer `produce` and documents the rules.
 * @internal
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ListedPages, ReflectorDelta, WatchEvent } from '../watch/index.js';
import { deepFreeze, objectKey } from '../objects/index.js';
import { objectsForEach, objectsGet } from './objects-trie.js';
import { storeDataOf, storeIndexersOf, type Store } from './store.js';
import type { StoreChange, StoreProblem } from './types.js';
import {
  compactWork,
  fillEmpty,
  indexerList,
  putObject,
  removeObject,
  workingCopy,
  type IndexFailure,
  type IndexerList,
  type WorkingData,
} from './writes.js';

/**
 * The listing so far of a relist that has not reached `relistDone`, newest first. A persistent linked list: one
 * `listed` costs O(1) and shares everything before it, so a relist streamed one event per step stays linear.
 * `object: null` records a watch deletion received (out of protocol) during the relist.
 */
export interface ListingNode<T> {
  readonly key: string;
  readonly object: T | null;
  readonly next: ListingNode<T> | null;
}

type Keyed<T extends KubernetesObject> = WatchEvent<T> & { object: T };

/**
 * The state of one `applyWatchEvents` call: the working copy the deltas are written to, the changes and problems
 * they produced, and the relist in progress.
 *
 * # Guarantees
 * - Never writes to a frozen node: the base snapshot stays untouched even if a delta throws half-way.
 * - Changes are recorded in the order the deltas were applied.
 *
 * # Caveats
 * - The working copy is not frozen until `freezeWork` runs; it must not escape before that.
 */
export class Batch<T extends KubernetesObject> {
  readonly work: WorkingData<T>;
  /** The changes recorded one by one; a lean swap's are not among them (see {@link Batch.changeList}). */
  private changes: StoreChange<T>[] = [];
  readonly problems: StoreProblem[] = [];
  resourceVersion: string;
  synced: boolean;
  relisting: boolean;
  private readonly indexers: IndexerList<T>;
  private relistBase: ListingNode<T> | null;
  /**
   * This batch's part of the listing, in arrival order: keys and objects side by side (`null`: a deletion). Two flat
   * arrays, not a Map: a listing that arrives in one batch is inserted straight from them.
   */
  private localKeys: string[] = [];
  private localObjects: (T | null)[] = [];
  /**
   * The swap of a relist into an empty cache, whose `added` changes are made only when someone reads them; `at` is
   * where they go among the recorded changes.
   */
  private swap: { readonly at: number; readonly changes: ListingSwap<T> } | undefined;
  /** Keys changed by this batch, for `apply(…, exact)`. */
  private readonly touched = new Set<string>();
  /** A relist was swapped in: every key may have changed. */
  private sealed = false;
  /** Indexers that threw on the object being stored; reused, empty between deltas. */
  private readonly failures: IndexFailure[] = [];

  /** Starts from `store`; `relist` is the listing of a relist in progress (`null`: nothing listed yet) or undefined. */
  constructor(store: Store<T>, relist: ListingNode<T> | null | undefined) {
    const data = storeDataOf(store);
    this.work = workingCopy(data);
    this.indexers = indexerList(storeIndexersOf(store));
    this.resourceVersion = data.resourceVersion;
    this.synced = data.synced;
    this.relisting = relist !== undefined;
    this.relistBase = relist ?? null;
  }

  /** The listing of an unfinished relist, including this batch's part. */
  listing(): ListingNode<T> | null {
    let head = this.relistBase;
    const { localKeys, localObjects } = this;
    for (let i = 0; i < localKeys.length; i++)
      head = Object.freeze({ key: localKeys[i]!, object: localObjects[i]!, next: head });
    return head;
  }

  /**
   * The changes in the order they were made. A relist swapped into an empty cache records none itself: they are
   * made here, on the first call, from the listing (so an informer nobody reads changes from never makes them).
   */
  changeList(): StoreChange<T>[] {
    const swap = this.swap;
    if (swap !== undefined) {
      this.swap = undefined;
      const all = this.changes.slice(0, swap.at);
      swap.changes.forEach((change) => all.push(change));
      for (let i = swap.at; i < this.changes.length; i++) all.push(this.changes[i]!);
      this.changes = all;
    }
    return this.changes;
  }

  /** Calls `visit` on every change in order, without collecting a lean swap's changes into an array. */
  forEachChange(visit: (change: StoreChange<T>) => void): void {
    const { swap, changes } = this;
    const at = swap === undefined ? changes.length : swap.at;
    for (let i = 0; i < at; i++) visit(changes[i]!);
    if (swap === undefined) return;
    swap.changes.forEach(visit);
    for (let i = at; i < changes.length; i++) visit(changes[i]!);
  }

  /**
   * Applies one delta to the working copy, following the rules stated on `applyWatchEvents`.
   *
   * With `exact`, a delta that would change a key this batch already changed, or any change after a relist was
   * swapped in (and a relist swap after any change), is refused: nothing is applied and false is returned, so that
   * the caller can end the batch there. Within a batch applied this way, the one snapshot it produces holds, for
   * every change, exactly that change's result for its key.
   */
  apply(event: ReflectorDelta<T>, exact = false): boolean {
    switch (event.type) {
      case 'listedPages':
        return this.applyListedPages(event, exact);
      case 'status':
      case 'problem':
        return true;
      case 'relistStarted':
        this.restartListing(true);
        return true;
      case 'listed': {
        const key = this.keyOf(event);
        if (key === undefined) return true;
        if (this.relisting) {
          this.addToListing(key, event.object);
          return true;
        }
        if (exact && !this.touch(key)) return false;
        deepFreeze(event.object);
        this.report('OutOfOrder', `listed ${key} outside a relist; applied as modified`, event);
        this.upsert(key, event.object, event);
        this.advance(event.object);
        return true;
      }
      case 'relistDone':
        if (this.relisting) {
          if (exact && (this.sealed || this.touched.size > 0)) return false;
          this.finishRelist(event);
          this.synced = true;
          this.restartListing(false);
          // The swap may have changed any key: a later change goes into the next batch.
          this.sealed = true;
        } else {
          this.report('OutOfOrder', 'relistDone without relistStarted; only the resourceVersion moved', event);
        }
        this.resourceVersion = event.resourceVersion;
        return true;
      case 'added':
      case 'modified':
      case 'deleted':
        return this.applyWatchDelta(event, exact);
      case 'bookmark':
        if (!this.relisting) this.resourceVersion = event.resourceVersion;
        return true;
    }
  }

  /**
   * A listing's objects, applied as their `listed` events would be, one by one. Inside a relist, where the reflector
   * emits them, they join the listing. Outside one each is an out-of-order `listed`; with `exact` they are then
   * applied all at the start of a batch or refused all (so never half), and the batch ends after them.
   */
  private applyListedPages(event: ListedPages<T>, exact: boolean): boolean {
    if (this.relisting) {
      for (const page of event.pages) {
        for (const object of page) {
          const key = this.keyOfObject(object, undefined);
          if (key !== undefined) this.addToListing(key, object);
        }
      }
      return true;
    }
    if (exact && (this.sealed || this.touched.size > 0)) return false;
    for (const page of event.pages) for (const object of page) this.apply({ type: 'listed', object });
    if (exact) this.sealed = true;
    return true;
  }

  private addToListing(key: string, object: T): void {
    deepFreeze(object);
    this.localKeys.push(key);
    this.localObjects.push(object);
  }

  /** Records that this batch changes `key`; false when it already did (or a relist was swapped in). */
  private touch(key: string): boolean {
    if (this.sealed || this.touched.has(key)) return false;
    this.touched.add(key);
    return true;
  }

  private applyWatchDelta(event: Keyed<T> & { type: 'added' | 'modified' | 'deleted' }, exact: boolean): boolean {
    const key = this.keyOf(event);
    if (key === undefined) return true;
    if (exact && !this.relisting && !this.touch(key)) return false;
    deepFreeze(event.object);
    if (this.relisting) {
      this.report('OutOfOrder', `${event.type} ${key} during a relist; applied to the listing`, event);
      this.localKeys.push(key);
      this.localObjects.push(event.type === 'deleted' ? null : event.object);
      return true;
    }
    if (event.type !== 'deleted') {
      this.upsert(key, event.object, event);
    } else {
      const old = objectsGet(this.work.objects, key);
      if (old !== undefined) {
        removeObject(this.work, this.indexers, key, old);
        this.changes.push({ type: 'deleted', key, object: event.object, stateUnknown: false });
      }
    }
    this.advance(event.object);
    return true;
  }

  private restartListing(relisting: boolean): void {
    this.relisting = relisting;
    this.relistBase = null;
    this.localKeys = [];
    this.localObjects = [];
  }

  private report(reason: StoreProblem['reason'], message: string, event: WatchEvent<T>): void {
    this.problems.push({ reason, message, event: event as WatchEvent<KubernetesObject> });
  }

  private keyOf(event: Keyed<T>): string | undefined {
    return this.keyOfObject(event.object, event);
  }

  /** The key of `object`, or undefined after reporting it under `event` (by default, its `listed` event). */
  private keyOfObject(object: T, event: WatchEvent<T> | undefined): string | undefined {
    try {
      return objectKey(object);
    } catch (error) {
      this.report('MissingName', (error as Error).message, event ?? { type: 'listed', object });
      return undefined;
    }
  }

  /** Stores `object` under `key` and records the change. */
  private upsert(key: string, object: T, event: WatchEvent<T>): void {
    const failures = this.failures;
    const old = putObject(this.work, this.indexers, key, object, failures);
    if (failures.length > 0) this.reportIndexFailures(key, event);
    this.changes.push(old === undefined ? { type: 'added', key, object } : { type: 'updated', key, old, object });
  }

  private reportIndexFailures(key: string, event: WatchEvent<T>): void {
    for (const { name, error } of this.failures) {
      this.report(
        'IndexerFailed',
        `indexer "${name}" threw on ${key}; the object is stored but not in that index: ${error.message}`,
        event,
      );
    }
    this.failures.length = 0;
  }

  private advance(object: T): void {
    const version = object.metadata?.resourceVersion;
    if (typeof version === 'string' && version !== '') this.resourceVersion = version;
  }

  /** Swaps the cache for the listing: changed and new objects first, then tombstones for the vanished ones. */
  private finishRelist(event: WatchEvent<T>): void {
    if (this.relistBase === null && this.work.objects === null) {
      this.fillEmpty(event);
      return;
    }
    const final = materialize(this.relistBase, this.localKeys, this.localObjects);
    const vanished: [string, T][] = [];
    objectsForEach(this.work.objects, (key, object) => {
      if ((final.get(key) ?? null) === null) vanished.push([key, object]);
    });
    for (const [key, object] of final) {
      if (object === null) continue;
      const old = objectsGet(this.work.objects, key);
      if (old !== undefined && sameVersion(old, object)) continue;
      this.upsert(key, object, event);
    }
    for (const [key, object] of vanished) {
      removeObject(this.work, this.indexers, key, object);
      this.changes.push({ type: 'deleted', key, object, stateUnknown: true });
    }
  }

  /**
   * The lean swap: the whole listing arrived in this batch and the cache is empty, so every listed key is `added`
   * and nothing vanishes. The listing goes straight from the two arrays into the trie (no Map), replayed in order so
   * that a repeated key or a deletion received during the relist ends as the Map would have it; the changes are
   * left to {@link ListingSwap}.
   */
  private fillEmpty(event: WatchEvent<T>): void {
    const { localKeys: keys, localObjects: objects, failures } = this;
    if (
      !objects.includes(null) &&
      fillEmpty(this.work, this.indexers, keys, objects as readonly T[], failures, (key) =>
        this.reportIndexFailures(key, event),
      )
    ) {
      compactWork(this.work, false);
      this.lazySwapChanges(keys, objects as readonly T[]);
      return;
    }
    let regular = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const object = objects[i]!;
      if (object === null) {
        regular = false;
        const old = objectsGet(this.work.objects, key);
        if (old !== undefined) removeObject(this.work, this.indexers, key, old);
        continue;
      }
      if (putObject(this.work, this.indexers, key, object, failures) !== undefined) regular = false;
      if (failures.length > 0) this.reportIndexFailures(key, event);
    }
    compactWork(this.work);
    if (!regular) {
      // A key repeated or deleted during the relist (rare): made now, from the trie as the listing left it (later
      // deltas of this batch may write to its nodes in place). First-listed order, the key's last object.
      const seen = new Set<string>();
      for (const key of keys) {
        if (seen.has(key)) continue;
        seen.add(key);
        const object = objectsGet(this.work.objects, key);
        if (object !== undefined) this.changes.push({ type: 'added', key, object });
      }
      return;
    }
    this.lazySwapChanges(keys, objects as readonly T[]);
  }

  /** Leaves the `added` changes of a listing without repeated keys or deletions to {@link ListingSwap}. */
  private lazySwapChanges(keys: readonly string[], objects: readonly T[]): void {
    // A batch applied without `exact` may swap twice; the first swap's changes are then made now.
    if (this.swap !== undefined) this.changeList();
    this.swap = { at: this.changes.length, changes: new ListingSwap(keys, objects) };
  }
}

/** Same object, or both carry the same non-empty resourceVersion. */
function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  if (a === b) return true;
  const version = a.metadata?.resourceVersion;
  return typeof version === 'string' && version !== '' && version === b.metadata?.resourceVersion;
}

/**
 * The `added` changes of a relist swapped into an empty cache, made on demand: one per listed key, in listed order.
 * Only for a listing without a repeated key or a deletion, whose arrays then hold exactly the final objects.
 */
class ListingSwap<T> {
  constructor(
    private readonly keys: readonly string[],
    private readonly objects: readonly T[],
  ) {}

  forEach(visit: (change: StoreChange<T>) => void): void {
    const { keys, objects } = this;
    for (let i = 0; i < keys.length; i++) visit({ type: 'added', key: keys[i]!, object: objects[i]! });
  }
}

/** The listing as a Map in first-listed order, later entries (and then the local ones) winning for a repeated key. */
function materialize<T>(
  newest: ListingNode<T> | null,
  localKeys: readonly string[],
  localObjects: readonly (T | null)[],
): ReadonlyMap<string, T | null> {
  const nodes: ListingNode<T>[] = [];
  for (let node: ListingNode<T> | null = newest; node !== null; node = node.next) nodes.push(node);
  const result = new Map<string, T | null>();
  for (let i = nodes.length - 1; i >= 0; i--) result.set(nodes[i]!.key, nodes[i]!.object);
  for (let i = 0; i < localKeys.length; i++) result.set(localKeys[i]!, localObjects[i]!);
  return result;
}
