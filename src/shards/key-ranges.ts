/**
 * Which hash range a controller key lies in: the range of the FNV-1a hash of its object's uid (read from the
 * controller's primary cache) or of its namespace (read from the key itself).
 */
import type { Observable } from 'rxjs';
import type { sharding } from 'rxkube';
import { hexLess, shardHash } from '../sharding/index.js';

/** What the key mapping reads of a controller's primary informer: its Lister, and its deletes. */
export interface PrimaryCache {
  /** The latest snapshot: the object of a key, if cached. */
  current(): {
    /** The cached object of `key`, if any: only its `metadata.uid` is read. */
    get(key: string):
      | {
          /** Its metadata. */
          readonly metadata?: {
            /** The uid whose FNV-1a hash places the key in a range (with `hash: 'uid'`). */
            readonly uid?: string;
          };
        }
      | undefined;
  };
  /** Its events; only `deleted` ones are read (their last object's uid keeps a deleted key in its range). */
  readonly events$: Observable<{
    /** The informer event's type; `deleted` ones are read. */
    readonly type: string;
    /** The key it is about. */
    readonly key?: string;
    /** The key's last object, whose uid is remembered for a deleted key. */
    readonly object?: unknown;
  }>;
}

/** How many deleted keys' uids are remembered, at most (the oldest go first). */
export const DELETED_KEYS_REMEMBERED = 10_000;

/**
 * The range index of `hash` among `bounds` (contiguous, in order, covering the hash space), by binary search.
 *
 * # Guarantees
 * - Every hash lies in exactly one range of a `splitHashSpace` split: this returns its index.
 */
export function rangeIndex(bounds: readonly sharding.ShardRange[], hash: string): number {
  let low = 0;
  let high = bounds.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (hexLess(hash, bounds[middle]!.start)) high = middle - 1;
    else low = middle;
  }
  return low;
}

/**
 * Maps controller keys (`namespace/name`, or `name`) to hash ranges.
 *
 * # Guarantees
 * - `object.metadata.namespace`: a pure function of the key (the text before its `/`, `''` when cluster-scoped):
 *   every replica maps a key to the same range, cached or not.
 * - `object.metadata.uid`: the range of the uid of the key's object in the primary cache; for a key deleted from
 *   it, the uid of its last object (the last 10 000 deleted keys: `defaults.sharding.deletedKeysRemembered`), so the run that follows
 *   a delete happens on the replica that holds the deleted object's range. A key whose uid is unknown here maps to
 *   no range: no replica that does not know the object runs it.
 *
 * # Caveats
 * - With uids, a name deleted and created again is another object with another uid, in another range: the
 *   replica of the old range aborts its run of the key when its cache shows the new object, but that run may
 *   still be ending when the new object's first run starts on the other replica.
 */
export class KeyRanges {
  private primary: PrimaryCache | undefined;
  private readonly deleted = new Map<string, string>();

  constructor(
    private readonly field: sharding.ShardField,
    private readonly bounds: readonly sharding.ShardRange[],
  ) {}

  /** The controller's primary cache, where uids are read (needed for `object.metadata.uid`). */
  attach(primary: PrimaryCache): void {
    this.primary = primary;
  }

  /** Called with each event of the primary: remembers the uids of deleted keys. */
  observe(event: { readonly type: string; readonly key?: string; readonly object?: unknown }): void {
    if (typeof event.key !== 'string') return;
    if (event.type !== 'deleted') {
      this.deleted.delete(event.key);
      return;
    }
    const uid = (event.object as { metadata?: { uid?: unknown } } | undefined)?.metadata?.uid;
    if (typeof uid !== 'string') return;
    this.deleted.delete(event.key);
    this.deleted.set(event.key, uid);
    if (this.deleted.size > DELETED_KEYS_REMEMBERED) this.deleted.delete(this.deleted.keys().next().value!);
  }

  /** The range of `key`, or `undefined` when it cannot be known here. */
  rangeOf(key: string): number | undefined {
    if (this.field === 'object.metadata.namespace') {
      const slash = key.indexOf('/');
      return rangeIndex(
        this.bounds,
        shardHash({ metadata: { namespace: slash < 0 ? '' : key.slice(0, slash) } }, this.field),
      );
    }
    const uid = this.primary?.current().get(key)?.metadata?.uid ?? this.deleted.get(key);
    if (uid === undefined) return undefined;
    return rangeIndex(this.bounds, shardHash({ metadata: { uid } }, this.field));
  }
}
