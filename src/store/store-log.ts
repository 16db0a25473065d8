/**
 * `StoreLog`: a store written as a log of key writes, whose snapshots are built on their first read. For derived
 * stores that change on every step and are read far less often (a view's rows, a join's groups).
 * @internal
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { deepFreeze } from '../objects/index.js';
import { editStore } from './edit.js';
import { NAMESPACE_INDEX, lazyStore, storeDataOf, storeIndexersOf, type Store, type StoreData } from './store.js';
import {
  compactWork,
  fillEmpty,
  freezeWork,
  indexerList,
  indexValuesOf,
  workingCopy,
  type IndexFailure,
  type IndexerList,
} from './writes.js';

/**
 * A log nobody read since its last fold is folded by copying the caller's map of the store as it is now, rather
 * than by replaying the log, while the store holds at most this many times `limit` keys: copying a reference per
 * key costs far less than a path copy per write, and the store it makes is built (bottom-up, once) only if read.
 */
const COPY_FOLD_FACTOR = 4;

/**
 * A base `Store` and the writes made since, in order (`key, object` pairs; `undefined` for a deletion). The log only
 * grows until the store log starts a new chain, so a snapshot is a prefix of it, and a prefix, once written, never
 * changes: that is what keeps every snapshot readable after later writes.
 */
class Chain<T extends KubernetesObject> {
  readonly log: (string | T | undefined)[] = [];
  /** The last snapshot built from this chain, and how many log entries it covers, so reads in order are cheap. */
  private built: Store<T>;
  builtLength = 0;

  constructor(readonly base: Store<T>) {
    this.built = base;
  }

  /** The store after the first `length` writes of the log. */
  storeAt(length: number): Store<T> {
    const fromBuilt = length >= this.builtLength;
    const start = fromBuilt ? this.builtLength : 0;
    const from = fromBuilt ? this.built : this.base;
    if (start === length) return from;
    const editor = editStore(from);
    const { log } = this;
    for (let i = start * 2; i < length * 2; i += 2) {
      const key = log[i] as string;
      const object = log[i + 1] as T | undefined;
      if (object === undefined) editor.delete(key);
      else editor.set(key, object);
    }
    const store = editor.commit();
    if (fromBuilt) {
      this.built = store;
      this.builtLength = length;
    }
    return store;
  }
}

/**
 * Writes to a store, each a log entry; {@link StoreLog.snapshot} makes the store as it is now into a `Store` that
 * builds its contents (trie and indexes) on its first read, replaying the writes made since the last one built.
 *
 * # Guarantees
 * - A write costs a log entry (and a call of each indexer, see `set`); a snapshot costs one `Store` object.
 * - A snapshot read after any number of later writes, in any order, shows the store as it was when it was taken:
 *   it is immutable and deep-frozen as any `Store`, and shares structure with the snapshots built before it.
 * - Reading snapshots in the order they were taken costs what writing them through `editStore` would: each
 *   build replays only the writes since the last build.
 * - Every `limit` writes the log is folded into a `Store` and a new log starts: that bounds what an unread snapshot
 *   keeps alive and what reading an old one replays. When a snapshot was read since the last fold, the fold
 *   replays the writes after it; when none was, and the caller gave its map of the store as it is now (`now`) and
 *   the store holds at most {@link COPY_FOLD_FACTOR} × `limit` keys, the fold copies that map's entries (a
 *   reference per key, no trie work) into a store built bottom-up on its first read.
 *
 * # Caveats
 * - `now`, when given, must hold exactly what the logged writes make of the store, every time a write is logged:
 *   update it before logging the write.
 * - The caller knows what the store holds (it keeps its own map): `delete` of a key the store does not hold, or
 *   `set` of the object a key already holds, are logged all the same (and change nothing when replayed).
 * - `synced` and `resourceVersion` are the base store's.
 */
export class StoreLog<T extends KubernetesObject> {
  private chain: Chain<T>;
  /** The indexers a write runs to report a throw: the custom ones (the built-in namespace index cannot throw). */
  private readonly indexers: IndexerList<T>;
  /** The snapshot of the store as it is now, once taken. */
  private current: Store<T> | undefined;

  /**
   * `base` is the store before any write; `limit` writes make a fold; `now`, if given, is the caller's own map of
   * the store as it is now (key → object), which a fold may copy (see the guarantees).
   */
  constructor(
    base: Store<T>,
    private readonly limit = 32,
    private readonly now?: ReadonlyMap<string, T>,
  ) {
    this.chain = new Chain(base);
    this.indexers = indexerList(storeIndexersOf(base)).filter(([name]) => name !== NAMESPACE_INDEX);
  }

  /**
   * Logs `object` (deep-frozen here if it is not yet) under `key`. Each indexer runs on it now, and one that throws
   * is pushed on `failures`, as `editStore` would report it: indexers are pure, so building the snapshot later
   * leaves the object out of that index, as the editor does.
   */
  set(key: string, object: T, failures?: IndexFailure[]): void {
    if (failures !== undefined && this.indexers.length > 0) {
      for (const [name, indexer] of this.indexers) {
        const values = indexValuesOf(indexer, object);
        if (values instanceof Error) failures.push({ name, error: values });
      }
    }
    this.write(key, deepFreeze(object));
  }

  /** Logs the deletion of `key`. */
  delete(key: string): void {
    this.write(key, undefined);
  }

  /** The store as it is now: a `Store` built on its first read, the same one until the next write. */
  snapshot(): Store<T> {
    return (this.current ??= this.take());
  }

  private take(): Store<T> {
    const { chain } = this;
    const { base } = chain;
    const length = chain.log.length / 2;
    if (length === 0) return base;
    return lazyStore(
      () => storeDataOf(chain.storeAt(length)),
      storeIndexersOf(base),
      base.synced,
      base.resourceVersion,
    );
  }

  private write(key: string, object: T | undefined): void {
    const { chain } = this;
    chain.log.push(key, object);
    this.current = undefined;
    // Fold the log into a Store and start a new chain; snapshots taken before keep the old chain.
    if (chain.log.length >= this.limit * 2) this.chain = new Chain(this.fold(chain));
  }

  /** The store after every write of `chain`. */
  private fold(chain: Chain<T>): Store<T> {
    const { now } = this;
    const length = chain.log.length / 2;
    if (now === undefined || chain.builtLength > 0 || now.size > COPY_FOLD_FACTOR * this.limit) {
      return chain.storeAt(length);
    }
    const keys = new Array<string>(now.size);
    const objects = new Array<T>(now.size);
    let i = 0;
    for (const [key, object] of now) {
      keys[i] = key;
      objects[i] = object;
      i += 1;
    }
    const { base } = chain;
    return lazyStore(
      () => storeDataOfEntries(base, keys, objects),
      storeIndexersOf(base),
      base.synced,
      base.resourceVersion,
    );
  }
}

/**
 * The contents of a store holding `keys[i] → objects[i]` (distinct keys, frozen objects), with `like`'s indexers,
 * `synced` and `resourceVersion`: the objects trie built bottom-up, the indexes filed in order. Indexers that throw
 * leave the object out of that index, as a replay through `editStore` would (`StoreLog.set` reported them).
 */
function storeDataOfEntries<T extends KubernetesObject>(
  like: Store<T>,
  keys: readonly string[],
  objects: readonly T[],
): StoreData<T> {
  const indexers = storeIndexersOf(like);
  const indexes: Record<string, null> = {};
  for (const name of Object.keys(indexers)) indexes[name] = null;
  const work = workingCopy<T>({
    objects: null,
    size: 0,
    indexes,
    resourceVersion: like.resourceVersion,
    synced: like.synced,
    namespacesFollowKeys: true,
  });
  if (!fillEmpty(work, indexerList(indexers), keys, objects, [], () => undefined)) {
    throw new Error('StoreLog: the map of the store as it is now repeated a key');
  }
  compactWork(work, false);
  freezeWork(work);
  return Object.freeze({
    objects: work.objects,
    size: work.size,
    indexes: Object.freeze(work.indexes),
    resourceVersion: like.resourceVersion,
    synced: like.synced,
    namespacesFollowKeys: work.namespacesFollowKeys,
  });
}
