/**
 * Writes to a drafted snapshot: objects and every index together, so the two can never disagree.
 * @internal
 */
import { isDraft, type Draft } from 'immer';
import { hashKey, trieDelete, trieGet, trieSet } from './hash-trie.js';
import type { IndexBucket, StoreData } from './store.js';
import type { Indexer, Indexers } from './types.js';

/** The values `indexer` files `object` under, or the error it threw. */
export function indexValuesOf<T>(indexer: Indexer<T>, object: T): ReadonlySet<string> | Error {
  try {
    const raw = indexer(object);
    const values = new Set<string>();
    if (typeof raw === 'string') values.add(raw);
    else if (raw !== null && raw !== undefined) {
      for (const value of raw) if (typeof value === 'string') values.add(value);
    }
    return values;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

const none: ReadonlySet<string> = new Set();

/**
 * Puts `object` under `key` (replacing `old`, the object the base snapshot held there) and moves the key between
 * index buckets. Returns the indexes whose indexer threw on `object`, for the caller to report.
 */
export function putObject<T>(
  draft: Draft<StoreData<T>>, indexers: Indexers<T>, key: string, object: T, old: T | undefined,
): { name: string; error: Error }[] {
  if (trieSet(draft, 'objects', key, object as Draft<T>)) draft.size += 1;
  const failures: { name: string; error: Error }[] = [];
  for (const [name, indexer] of Object.entries(indexers)) {
    const next = indexValuesOf(indexer, object);
    if (next instanceof Error) failures.push({ name, error: next });
    // An indexer that threw on the old object filed it nowhere (indexers are pure), so there is nothing to remove.
    const before = old === undefined ? none : indexValuesOf(indexer, old);
    moveKey(draft, name, key, before instanceof Error ? none : before, next instanceof Error ? none : next);
  }
  return failures;
}

/** Removes `key` (holding `old` in the base snapshot) from the objects and from every index. */
export function removeObject<T>(draft: Draft<StoreData<T>>, indexers: Indexers<T>, key: string, old: T): void {
  if (trieDelete(draft, 'objects', key)) draft.size -= 1;
  for (const [name, indexer] of Object.entries(indexers)) {
    const before = indexValuesOf(indexer, old);
    if (!(before instanceof Error)) moveKey(draft, name, key, before, none);
  }
}

function moveKey<T>(
  draft: Draft<StoreData<T>>, name: string, key: string, before: ReadonlySet<string>, after: ReadonlySet<string>,
): void {
  const indexes = draft.indexes as Record<string, unknown>;
  for (const value of before) if (!after.has(value)) removeFromBucket(indexes, name, value, key);
  for (const value of after) if (!before.has(value)) addToBucket(indexes, name, value, key);
}

type WritableBucket = { size: number; keys: unknown };

/** The bucket for `value`, writable: a draft, or a copy put in place of a frozen original reached after a split. */
function bucketFor(indexes: Record<string, unknown>, name: string, value: string, hash: number): WritableBucket | undefined {
  const bucket = trieGet(indexes[name] as never, value, hash) as WritableBucket | undefined;
  if (bucket === undefined || isDraft(bucket) || !Object.isFrozen(bucket)) return bucket;
  const copy = { size: bucket.size, keys: bucket.keys };
  trieSet(indexes, name, value, copy, hash);
  return copy;
}

function addToBucket(indexes: Record<string, unknown>, name: string, value: string, key: string): void {
  const hash = hashKey(value);
  const bucket = bucketFor(indexes, name, value, hash);
  if (bucket === undefined) {
    const fresh: IndexBucket = { size: 1, keys: new Map([[key, true]]) };
    trieSet(indexes, name, value, fresh, hash);
  } else if (trieSet(bucket, 'keys', key, true)) {
    bucket.size += 1;
  }
}

function removeFromBucket(indexes: Record<string, unknown>, name: string, value: string, key: string): void {
  const hash = hashKey(value);
  const bucket = bucketFor(indexes, name, value, hash);
  if (bucket === undefined || !trieDelete(bucket, 'keys', key)) return;
  bucket.size -= 1;
  if (bucket.size === 0) trieDelete(indexes, name, value, hash);
}
