/**
 * Versioned object storage: one global resourceVersion counter, objects per resource in Maps, and a bounded
 * history ring that serves watch resumption and consistent paginated lists.
 * @module
 */
import { deepFreeze, type KubeObject, objectKey } from '../machinery/index.js';
import { lowerBound, SortedKeys } from './sorted-keys.js';

/** A committed change, as watchers and the history see it. */
export interface StoredEvent {
  readonly rv: number;
  /** Storage key of the resource (`group/plural`). */
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** Object key (`namespace/name` or `name`). */
  readonly key: string;
  /** The new state; for DELETED, the last state with `resourceVersion` set to the deletion's RV. */
  readonly object: KubeObject;
  /** The state before this change (absent for ADDED). */
  readonly prev?: KubeObject;
  /** Serialized watch lines, computed once per variant and shared by every watcher. */
  readonly lines: Map<string, string>;
}

/**
 * A point-in-time view of one resource's objects, in key order.
 *
 * # Caveats
 * - Valid only until the next commit: use it synchronously (list handling never awaits between pages).
 */
export interface Snapshot {
  readonly rv: number;
  get(key: string): KubeObject | undefined;
  /** Keys that existed at `rv` in `[from, to)` (`to` undefined: to the end), in order. */
  keys(from: string, to: string | undefined): Generator<string>;
  /** How many keys existed at `rv` in `[from, to)`. */
  count(from: string, to: string | undefined): number;
}

/**
 * The server's database.
 *
 * # Guarantees
 * - Every commit gets a resourceVersion strictly greater than all earlier ones, across all resources.
 * - Stored objects are deep-frozen: nothing handed out can change stored state.
 * - Listeners are called synchronously, in commit order, after the state has changed.
 *
 * # Caveats
 * - The history keeps at most `historySize` events; older ones are compacted away, as etcd compaction does.
 */
export class ObjectStore {
  private counter = 0;
  private compactedRv = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly sorted = new Map<string, SortedKeys>();
  private history: StoredEvent[] = [];
  private head = 0;
  private readonly listeners = new Set<(event: StoredEvent) => void>();

  constructor(private readonly historySize: number) {}

  /** The latest committed resourceVersion. */
  get resourceVersion(): number {
    return this.counter;
  }

  /** Events at or below this RV are forgotten. */
  get compacted(): number {
    return this.compactedRv;
  }

  /** Subscribes to commits; returns the unsubscribe function. */
  listen(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The current (frozen) object under `key`, if any. */
  get(resource: string, key: string): KubeObject | undefined {
    return this.objects.get(resource)?.get(key);
  }

  /** Number of objects currently stored for a resource. */
  count(resource: string): number {
    return this.objects.get(resource)?.size ?? 0;
  }

  /** All current objects of a resource (insertion order). */
  values(resource: string): IterableIterator<KubeObject> {
    return (this.objects.get(resource) ?? new Map<string, KubeObject>()).values();
  }

  /**
   * Stores `object` (create or update), stamping the next resourceVersion into a copy. Returns the stored object.
   */
  put(resource: string, object: KubeObject): KubeObject {
    const key = objectKey(object.metadata.namespace ?? '', object.metadata.name ?? '');
    const map = this.bucket(resource);
    const prev = map.get(key);
    const rv = ++this.counter;
    const stored = deepFreeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
    map.set(key, stored);
    if (prev === undefined) this.updateKeys(resource, key, true);
    this.append({
      rv,
      resource,
      type: prev === undefined ? 'ADDED' : 'MODIFIED',
      key,
      object: stored,
      ...(prev ? { prev } : {}),
      lines: new Map(),
    });
    return stored;
  }

  /** Removes an object; returns its last state stamped with the deletion RV, or undefined when absent. */
  remove(resource: string, key: string): KubeObject | undefined {
    const map = this.objects.get(resource);
    const prev = map?.get(key);
    if (map === undefined || prev === undefined) return undefined;
    map.delete(key);
    this.updateKeys(resource, key, false);
    const rv = ++this.counter;
    const last = deepFreeze({ ...prev, metadata: { ...prev.metadata, resourceVersion: String(rv) } });
    this.append({ rv, resource, type: 'DELETED', key, object: last, prev, lines: new Map() });
    return last;
  }

  /** Forgets history up to `rv` (default: everything so far). */
  compact(rv: number = this.counter): void {
    const target = Math.min(rv, this.counter);
    if (target <= this.compactedRv) return;
    this.compactedRv = target;
    while (this.head < this.history.length && this.history[this.head]!.rv <= target) this.head++;
    this.trim();
  }

  /**
   * Events of `resource` with RV greater than `afterRv`, oldest first, or undefined when some are compacted away.
   */
  eventsSince(resource: string | undefined, afterRv: number): StoredEvent[] | undefined {
    if (afterRv < this.compactedRv) return undefined;
    const out: StoredEvent[] = [];
    for (let i = this.firstIndexAfter(afterRv); i < this.history.length; i++) {
      const event = this.history[i]!;
      if (resource === undefined || event.resource === resource) out.push(event);
    }
    return out;
  }

  /**
   * The state of `resource` as of `rv` (<= current). Undefined when history no longer reaches back that far.
   *
   * # Guarantees
   * - Costs O(E log E) for the E events of the resource since `rv`; never a copy or sort of all N keys after the
   *   first list of a resource, whose key index every write then maintains in O(log N) plus a splice within one
   *   chunk of at most 1024 keys.
   */
  snapshot(resource: string, rv: number): Snapshot | undefined {
    const since = this.eventsSince(resource, rv);
    if (since === undefined) return undefined;
    const current = this.bucket(resource);
    const cur = this.sortedKeys(resource);
    // State at rv = current state, with each key touched since rv rolled back to its value before the first touch.
    const overlay = new Map<string, KubeObject | undefined>();
    for (let i = since.length - 1; i >= 0; i--) {
      const event = since[i]!;
      overlay.set(event.key, event.type === 'ADDED' ? undefined : event.prev);
    }
    const extra = [...overlay]
      .filter(([k, v]) => v !== undefined && !current.has(k))
      .map(([k]) => k)
      .sort();
    const hidden = new Set([...overlay].filter(([k, v]) => v === undefined && current.has(k)).map(([k]) => k));
    const get = (key: string): KubeObject | undefined => (overlay.has(key) ? overlay.get(key) : current.get(key));
    const bound = (keys: readonly string[], to: string | undefined) =>
      to === undefined ? keys.length : lowerBound(keys, to);
    return {
      rv,
      get,
      *keys(from, to) {
        const live = cur.range(from, to);
        let next = live.next();
        let j = lowerBound(extra, from);
        const jEnd = bound(extra, to);
        while (!next.done || j < jEnd) {
          if (j >= jEnd || (!next.done && next.value < extra[j]!)) {
            const key = next.value as string;
            next = live.next();
            if (!hidden.has(key)) yield key;
          } else {
            yield extra[j++]!;
          }
        }
      },
      count(from, to) {
        let n =
          (to === undefined ? cur.size : cur.rank(to)) - cur.rank(from) + bound(extra, to) - lowerBound(extra, from);
        for (const key of hidden) if (key >= from && (to === undefined || key < to)) n--;
        return n;
      },
    };
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let map = this.objects.get(resource);
    if (map === undefined) {
      map = new Map();
      this.objects.set(resource, map);
    }
    return map;
  }

  private sortedKeys(resource: string): SortedKeys {
    let keys = this.sorted.get(resource);
    if (keys === undefined) {
      keys = SortedKeys.of(this.bucket(resource).keys());
      this.sorted.set(resource, keys);
    }
    return keys;
  }

  private updateKeys(resource: string, key: string, added: boolean): void {
    // Maintained in place only once some list needed it, so bulk writes before any list stay O(1).
    const keys = this.sorted.get(resource);
    if (keys === undefined) return;
    if (added) keys.insert(key);
    else keys.delete(key);
  }

  private append(event: StoredEvent): void {
    this.history.push(event);
    if (this.history.length - this.head > this.historySize) {
      this.compactedRv = this.history[this.head]!.rv;
      this.head++;
      this.trim();
    }
    // A Set tolerates deletion while iterating (a watch closing from inside a listener); no copy per commit.
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // The commit already happened: one failing listener must not starve the others or fail the write.
        console.error(`rxkube in-memory API server: a listener failed on event rv=${event.rv}:`, error);
      }
    }
  }

  private trim(): void {
    if (this.head > 1024 && this.head * 2 > this.history.length) {
      this.history = this.history.slice(this.head);
      this.head = 0;
    }
  }

  private firstIndexAfter(rv: number): number {
    let lo = this.head;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
