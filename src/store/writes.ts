/**
 * Writes to the working copy of a snapshot: objects and every index together, so the two can never disagree.
 * @internal
 */
import {
  compactFresh,
  freezeFresh,
  hashKey,
  trieDelete,
  trieForEach,
  trieGet,
  trieSet,
  type TrieNode,
} from './hash-trie.js';
import { objectsBuild, objectsDelete, objectsForEach, objectsSet, type ObjectsTrie } from './objects-trie.js';
import { NAMESPACE_INDEX, type IndexBucket, type StoreData } from './store.js';
import type { Indexer, Indexers } from './types.js';

/**
 * The parts of a snapshot a batch rewrites, as plain mutable holders of trie roots. Nodes reachable from here are
 * either frozen (shared with the base snapshot) or created by this batch; see `hash-trie.ts`.
 */
export interface WorkingData<T> {
  /** Every node and bucket this batch created, to be frozen when it ends. */
  readonly fresh: object[];
  objects: ObjectsTrie<T> | null;
  size: number;
  indexes: Record<string, TrieNode<IndexBucket> | null>;
  /** See `StoreData.namespacesFollowKeys`. */
  namespacesFollowKeys: boolean;
}

/** The indexers as a list, built once per batch. */
export type IndexerList<T> = readonly (readonly [name: string, indexer: Indexer<T>])[];

const indexerLists = new WeakMap<object, IndexerList<never>>();

/** The indexers of a store as an {@link IndexerList}, made once per set of indexers (every snapshot shares it). */
export function indexerList<T>(indexers: Indexers<T>): IndexerList<T> {
  let list = indexerLists.get(indexers) as IndexerList<T> | undefined;
  if (list === undefined) {
    list = Object.freeze(Object.entries(indexers));
    indexerLists.set(indexers, list as IndexerList<never>);
  }
  return list;
}

/** A working copy of `data`; its trie roots are shared until written. */
export function workingCopy<T>(data: StoreData<T>): WorkingData<T> {
  return {
    fresh: [],
    objects: data.objects,
    size: data.size,
    indexes: { ...data.indexes },
    namespacesFollowKeys: data.namespacesFollowKeys,
  };
}

/** Freezes what a batch created under `work`: new trie nodes and new index buckets. */
export function freezeWork<T>(work: WorkingData<T>): void {
  freezeFresh(work.fresh);
}

/**
 * Compacts the tries a batch built (objects, unless `objects` is false, index values and their buckets' keys) to
 * exact-size leaves; see `compactFresh`. Worth it after a batch that inserted many keys, such as a relist into an
 * empty cache.
 */
export function compactWork<T>(work: WorkingData<T>, objects = true): void {
  if (objects) compactFresh(work, 'objects', work.fresh, true);
  for (const name of Object.keys(work.indexes)) {
    trieForEach(work.indexes[name] ?? null, (_, bucket) => {
      if (!Object.isFrozen(bucket)) compactFresh(bucket, 'keys', work.fresh);
    });
    compactFresh(work.indexes, name, work.fresh);
  }
}

/**
 * What an indexer filed an object under: one value (the common case, kept as a plain string so that an unchanged
 * value costs one comparison), several, or none (`undefined`).
 */
type IndexValues = string | ReadonlySet<string> | undefined;

/** The values `indexer` files `object` under, or the error it threw. */
export function indexValuesOf<T>(indexer: Indexer<T>, object: T): IndexValues | Error {
  try {
    const raw = indexer(object);
    if (typeof raw === 'string') return raw;
    if (raw === null || raw === undefined) return undefined;
    const values = new Set<string>();
    for (const value of raw) if (typeof value === 'string') values.add(value);
    return values;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** An indexer that threw, for the caller to report. */
export interface IndexFailure {
  readonly name: string;
  readonly error: Error;
}

/**
 * Whether `filed`, what the namespace index files an object under, is the namespace its `key` spells (the text
 * before its first '/'; none for a key without one); allocates nothing. `objectKey` makes it so whenever the
 * namespace is a non-empty string without '/', or is missing and the name holds no '/': every object an API server
 * serves.
 */
function followsKey(key: string, filed: IndexValues | Error): boolean {
  if (filed === undefined) return key.indexOf('/') < 0;
  return typeof filed === 'string' && filed !== '' && key.indexOf('/') === filed.length && key.startsWith(filed);
}

/**
 * Puts `object` under `key` and moves the key between index buckets. Returns the object held there before
 * (`undefined`: the key is new); indexes whose indexer threw on `object` are pushed on `failures`.
 *
 * While every cached object, and `object`, follow their keys (see {@link followsKey}), the namespace index is not
 * written at all: the objects trie groups keys by the namespace they spell (`objects-trie.ts`), and the store
 * serves that index from it. The first object that does not follow its key turns `namespacesFollowKeys` false for
 * good, and the namespace index is then built once from every cached object and maintained like any other.
 */
export function putObject<T>(
  work: WorkingData<T>,
  indexers: IndexerList<T>,
  key: string,
  object: T,
  failures: IndexFailure[],
): T | undefined {
  const old = objectsSet(work, 'objects', key, object, work.fresh);
  if (old === undefined) work.size += 1;
  fileObject(work, indexers, key, old, object, failures);
  return old;
}

/**
 * Fills an empty working copy (no objects, no index entries) with a listing of distinct keys, the objects trie built
 * bottom-up with exact-size leaves (`objectsBuild`), then the indexes as {@link putObject} would, in listed order.
 * `reportFailures(key)` is called after each key some indexer threw on, with the failures on `failures`. Returns
 * false, having changed nothing, when a key occurs twice: the caller then puts the objects one by one.
 */
export function fillEmpty<T>(
  work: WorkingData<T>,
  indexers: IndexerList<T>,
  keys: readonly string[],
  objects: readonly T[],
  failures: IndexFailure[],
  reportFailures: (key: string) => void,
): boolean {
  const root = objectsBuild(keys, objects, work.fresh);
  if (root === undefined) return false;
  work.objects = root;
  work.size = keys.length;
  for (let i = 0; i < keys.length; i++) {
    fileObject(work, indexers, keys[i]!, undefined, objects[i]!, failures);
    if (failures.length > 0) reportFailures(keys[i]!);
  }
  return true;
}

/** Moves `key`, stored with `object` in place of `old`, between the buckets of every index. */
function fileObject<T>(
  work: WorkingData<T>,
  indexers: IndexerList<T>,
  key: string,
  old: T | undefined,
  object: T,
  failures: IndexFailure[],
): void {
  for (const [name, indexer] of indexers) {
    const next = indexValuesOf(indexer, object);
    if (next instanceof Error) failures.push({ name, error: next });
    if (name === NAMESPACE_INDEX && work.namespacesFollowKeys) {
      if (followsKey(key, next)) continue;
      work.namespacesFollowKeys = false;
      // Files every cached object, this one included.
      fileEveryObject(work, name, indexer);
      continue;
    }
    // An indexer that threw on the old object filed it nowhere (indexers are pure), so there is nothing to remove.
    const before = old === undefined ? undefined : indexValuesOf(indexer, old);
    moveKey(work, name, key, before instanceof Error ? undefined : before, next instanceof Error ? undefined : next);
  }
}

/** Files every cached object in the (empty) index `name`: once per store, when the namespace index starts. */
function fileEveryObject<T>(work: WorkingData<T>, name: string, indexer: Indexer<T>): void {
  objectsForEach(work.objects, (key, object) => {
    const values = indexValuesOf(indexer, object);
    if (!(values instanceof Error)) moveKey(work, name, key, undefined, values);
  });
}

/** Removes `key` (holding `old`) from the objects and from every index. */
export function removeObject<T>(work: WorkingData<T>, indexers: IndexerList<T>, key: string, old: T): void {
  if (objectsDelete(work, 'objects', key, work.fresh)) work.size -= 1;
  for (const [name, indexer] of indexers) {
    if (name === NAMESPACE_INDEX && work.namespacesFollowKeys) continue;
    const before = indexValuesOf(indexer, old);
    if (!(before instanceof Error)) moveKey(work, name, key, before, undefined);
  }
}

function moveKey<T>(work: WorkingData<T>, name: string, key: string, before: IndexValues, after: IndexValues): void {
  if (before === after) return;
  if (typeof before !== 'object' && typeof after !== 'object') {
    if (before !== undefined) removeFromBucket(work, name, before, key);
    if (after !== undefined) addToBucket(work, name, after, key);
    return;
  }
  const from = asSet(before);
  const to = asSet(after);
  for (const value of from) if (!to.has(value)) removeFromBucket(work, name, value, key);
  for (const value of to) if (!from.has(value)) addToBucket(work, name, value, key);
}

const none: ReadonlySet<string> = new Set();

function asSet(values: IndexValues): ReadonlySet<string> {
  return values === undefined ? none : typeof values === 'string' ? new Set([values]) : values;
}

type WritableBucket = { size: number; keys: TrieNode<true> | null };

/** The bucket for `value`, writable: one this batch created, or a copy put in place of the shared original. */
function bucketFor<T>(work: WorkingData<T>, name: string, value: string, hash: number): WritableBucket | undefined {
  const bucket = trieGet(work.indexes[name] as TrieNode<WritableBucket> | null, value, hash);
  if (bucket === undefined || !Object.isFrozen(bucket)) return bucket;
  const copy = { size: bucket.size, keys: bucket.keys };
  work.fresh.push(copy);
  trieSet(work.indexes, name, value, copy, work.fresh, hash);
  return copy;
}

function addToBucket<T>(work: WorkingData<T>, name: string, value: string, key: string): void {
  const hash = hashKey(value);
  const bucket = bucketFor(work, name, value, hash);
  if (bucket === undefined) {
    const fresh: WritableBucket = { size: 1, keys: null };
    work.fresh.push(fresh);
    trieSet(fresh, 'keys', key, true, work.fresh);
    trieSet(work.indexes, name, value, fresh, work.fresh, hash);
  } else if (trieSet(bucket, 'keys', key, true, work.fresh) === undefined) {
    bucket.size += 1;
  }
}

function removeFromBucket<T>(work: WorkingData<T>, name: string, value: string, key: string): void {
  const hash = hashKey(value);
  const bucket = bucketFor(work, name, value, hash);
  if (bucket === undefined || !trieDelete(bucket, 'keys', key, work.fresh)) return;
  bucket.size -= 1;
  if (bucket.size === 0) trieDelete(work.indexes, name, value, work.fresh, hash);
}
