/**
 * `Store<T>`: one immutable, deep-frozen snapshot of an informer's cache, with its indexes.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { freeze } from 'immer';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../selectors/index.js';
import { trieEntries, trieForEach, trieGet, type TrieNode } from './hash-trie.js';
import { namespacesOf, objectsEntries, objectsGet, objectsOfNamespace, type ObjectsTrie } from './objects-trie.js';
import type { Indexer, Indexers } from './types.js';
import type { StoreOptions } from 'rxkube/extend';

/** The built-in index of namespaced objects by `metadata.namespace`; `list({ namespace })` reads it. */
export const NAMESPACE_INDEX = 'namespace';

/** The keys filed under one index value, with their count so that empty buckets can be dropped. Internal. */
export interface IndexBucket {
  readonly size: number;
  readonly keys: TrieNode<true> | null;
}

/** The frozen, structurally shared contents of a snapshot; the reducer produces the next one with Immer. Internal. */
export interface StoreData<T> {
  /** Grouped by the namespace each key spells (see `objects-trie.ts`). */
  readonly objects: ObjectsTrie<T> | null;
  readonly size: number;
  /**
   * Per index name: index value → bucket of keys. The namespace index is `null` (unused) while
   * `namespacesFollowKeys` holds: the objects trie's groups serve it.
   */
  readonly indexes: Readonly<Record<string, TrieNode<IndexBucket> | null>>;
  readonly resourceVersion: string;
  readonly synced: boolean;
  /**
   * True while every cached object's namespace is the one its key spells (see `writes.ts`): the objects trie's
   * groups are then the namespace index, and no separate one is kept. Turns false, for good, when an object whose
   * namespace its key does not spell enters (an empty namespace, or one with a '/'); the namespace index is then
   * built once and maintained like any other.
   */
  readonly namespacesFollowKeys: boolean;
}

/** The contents of a snapshot, for the reducer. Internal to the store folder. */
export let storeDataOf: <T extends KubernetesObject>(store: Store<T>) => StoreData<T>;
/** The indexers of a snapshot, for the reducer. Internal to the store folder. */
export let storeIndexersOf: <T extends KubernetesObject>(store: Store<T>) => Indexers<T>;
/** Wraps reducer output; `data` must be frozen and built with the same indexers. Internal to the store folder. */
export let storeFromData: <T extends KubernetesObject>(data: StoreData<T>, indexers: Indexers<T>) => Store<T>;
/**
 * A snapshot whose contents are built by `build` on the first read that needs them (see `store-log.ts`); `synced`
 * and `resourceVersion` are known now. `build` must return frozen data made with the same indexers, and the same
 * data whenever it is called. Internal to the store folder.
 */
export let lazyStore: <T extends KubernetesObject>(
  build: () => StoreData<T>,
  indexers: Indexers<T>,
  synced: boolean,
  resourceVersion: string,
) => Store<T>;

/** What a lazy snapshot knows before it is built. */
interface Pending<T> {
  readonly build: () => StoreData<T>;
  readonly synced: boolean;
  readonly resourceVersion: string;
}

const namespaceIndexer: Indexer<KubernetesObject> = (object) => object.metadata?.namespace;

/**
 * An immutable snapshot of a cache of Kubernetes objects: the Lister of an informer.
 *
 * # Guarantees
 * - Immutable and deep-frozen: the store, every object it returns and all of their nested fields are frozen
 *   (`Object.isFrozen`), so no caller can change a snapshot that someone else holds.
 * - Snapshots share structure: the next snapshot reuses every object and trie node the reducer did not touch, and
 *   one delta costs O(log N) copying (see `applyWatchEvents`).
 * - Keys are `namespace/name`, or `name` for cluster-scoped objects (see `objectKey`).
 * - `list({ namespace })` and `byIndex` read incrementally maintained indexes; they never scan the whole cache.
 *   Objects are kept grouped by the namespace their key spells, so `list({ namespace })` reads one namespace's trie;
 *   a separate namespace index exists only once an object whose key does not spell its namespace was cached.
 *
 * # Caveats
 * - Iteration order is hash order (the namespaces' hash order, then each namespace's keys in theirs): stable for a
 *   given set of keys, but neither insertion nor alphabetical order.
 * - A snapshot of a view (and a join row's `right`) builds its contents on its first read other than `synced` and
 *   `resourceVersion`: that read replays the writes made since the last snapshot built (a bounded number; see
 *   `views.View`). What it shows does not depend on when it is read.
 * - `resourceVersion` is the last version the reflector reported (an object's, a bookmark's or a list's); it is
 *   only meaningful to the API server.
 */
export class Store<T extends KubernetesObject = KubernetesObject> implements Iterable<T> {
  // Private fields, so the representation stays out of the public type (and out of the API report); the reducer
  // reaches them through the module functions the static block defines. A private field is not a property, so
  // `Object.freeze` leaves it writable: a lazy snapshot sets `#data` once, on its first read, and it never changes
  // after (`build` gives the same contents whenever it is called).
  #data: StoreData<T> | undefined;
  #pending: Pending<T> | undefined;
  /** The indexers, including the built-in namespace index. */
  readonly #indexers: Indexers<T>;

  static {
    storeDataOf = (store) => store.#read() as never;
    storeIndexersOf = (store) => store.#indexers as never;
    storeFromData = (data, indexers) => new Store(data, undefined, indexers) as never;
    lazyStore = (build, indexers, synced, resourceVersion) =>
      new Store(undefined, { build, synced, resourceVersion }, indexers) as never;
  }

  private constructor(data: StoreData<T> | undefined, pending: Pending<T> | undefined, indexers: Indexers<T>) {
    this.#data = data;
    this.#pending = pending;
    this.#indexers = indexers;
    Object.freeze(this);
  }

  /** The contents, built now if this snapshot is lazy and was not read before. */
  #read(): StoreData<T> {
    return this.#data ?? this.#build();
  }

  #build(): StoreData<T> {
    const data = this.#pending!.build();
    this.#data = data;
    this.#pending = undefined;
    return data;
  }

  /**
   * An empty, unsynced store with the given indexes.
   * Throws a `TypeError` when an indexer is not a function or uses the reserved name `namespace`.
   */
  static empty<T extends KubernetesObject = KubernetesObject>(options: StoreOptions<T> = {}): Store<T> {
    const indexers: Record<string, Indexer<T>> = { [NAMESPACE_INDEX]: namespaceIndexer };
    for (const [name, indexer] of Object.entries(options.indexers ?? {})) {
      if (name === NAMESPACE_INDEX) throw new TypeError(`the index name "${NAMESPACE_INDEX}" is built in and reserved`);
      if (typeof indexer !== 'function') throw new TypeError(`indexer "${name}" must be a function`);
      indexers[name] = indexer;
    }
    const indexes: Record<string, null> = {};
    for (const name of Object.keys(indexers)) indexes[name] = null;
    const data: StoreData<T> = {
      objects: null,
      size: 0,
      indexes,
      resourceVersion: '',
      synced: false,
      namespacesFollowKeys: true,
    };
    return new Store(freeze(data, true), undefined, Object.freeze(indexers));
  }

  /** How many objects are cached. */
  get size(): number {
    return this.#read().size;
  }

  /** The resourceVersion the cache reflects; `''` before the first list. */
  get resourceVersion(): string {
    return this.#data?.resourceVersion ?? this.#pending!.resourceVersion;
  }

  /** True from the first completed list on; never goes back to false. */
  get synced(): boolean {
    return this.#data?.synced ?? this.#pending!.synced;
  }

  /** The object cached under `key` (`namespace/name` or `name`), if any. */
  get(key: string): T | undefined {
    return objectsGet(this.#read().objects, key);
  }

  /** Whether an object is cached under `key`. */
  has(key: string): boolean {
    return objectsGet(this.#read().objects, key) !== undefined;
  }

  /**
   * The cached objects, optionally filtered by namespace and label selector.
   *
   * # Caveats
   * - A malformed selector text throws the selectors module's `SelectorParseError`; nothing is filtered silently.
   */
  list(
    options: {
      /** Only objects in this namespace (served from the namespace index, not a scan). */
      readonly namespace?: string;
      /** A label selector, as text (`app=web,tier in (a,b)`) or already parsed. Text is parsed once per call. */
      readonly labelSelector?: string | LabelSelector;
    } = {},
  ): T[] {
    const selector =
      typeof options.labelSelector === 'string' ? parseLabelSelector(options.labelSelector) : options.labelSelector;
    const candidates =
      options.namespace === undefined ? this.values() : this.byIndex(NAMESPACE_INDEX, options.namespace);
    const result: T[] = [];
    for (const object of candidates) {
      if (selector === undefined || matchesLabels(selector, object.metadata?.labels ?? {})) result.push(object);
    }
    return result;
  }

  /**
   * The objects an index files under `value`, e.g. `byIndex('byNode', 'node-1')`.
   * Throws a `RangeError` for an index that was not declared, so a typo is not mistaken for an empty result.
   */
  byIndex(indexName: string, value: string): T[] {
    const result: T[] = [];
    if (this.groupsAreNamespaces(indexName)) {
      trieForEach(objectsOfNamespace(this.#read().objects, value), (_, object) => result.push(object));
      return result;
    }
    const bucket = trieGet(this.indexRoot(indexName), value);
    if (bucket === undefined) return result;
    for (const [key] of trieEntries(bucket.keys)) {
      const object = objectsGet(this.#read().objects, key);
      if (object !== undefined) result.push(object);
    }
    return result;
  }

  /** The values an index currently has objects under (e.g. every namespace in use). */
  indexValues(indexName: string): string[] {
    if (this.groupsAreNamespaces(indexName)) return [...namespacesOf(this.#read().objects)];
    return [...trieEntries(this.indexRoot(indexName))].map(([value]) => value);
  }

  /** Every key, in hash order. */
  *keys(): IterableIterator<string> {
    for (const [key] of objectsEntries(this.#read().objects)) yield key;
  }

  /** Every object, in hash order. */
  *values(): IterableIterator<T> {
    for (const [, object] of objectsEntries(this.#read().objects)) yield object;
  }

  /** Every `[key, object]` pair, in hash order. */
  entries(): IterableIterator<[string, T]> {
    return objectsEntries(this.#read().objects);
  }

  /** Iterates the objects (like {@link Store.values}). */
  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }

  /** Whether `indexName` is the namespace index served by the objects trie's groups (see `StoreData`). */
  private groupsAreNamespaces(indexName: string): boolean {
    return indexName === NAMESPACE_INDEX && this.#read().namespacesFollowKeys;
  }

  private indexRoot(indexName: string): TrieNode<IndexBucket> | null {
    const { indexes } = this.#read();
    if (!Object.hasOwn(indexes, indexName)) {
      throw new RangeError(`unknown index "${indexName}"; declared: ${Object.keys(indexes).join(', ')}`);
    }
    return indexes[indexName] ?? null;
  }
}

/** Filters for {@link Store.list}. */
export type ListOptions = NonNullable<Parameters<Store['list']>[0]>;
