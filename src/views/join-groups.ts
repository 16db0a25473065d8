/**
 * The groups of a join: per join key, the right objects with that key (a mutable Map, with a log of its writes
 * from which each version of the group is built as a `Store` when it is read) and the left objects with that key.
 * @internal
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { StoreLog, type Store } from '../store/index.js';
import type { JoinRow } from './types.js';

/**
 * Everything a join keeps under one join key, in one object, so that a right object's change reaches its rows
 * through one Map lookup.
 *
 * # Guarantees
 * - A write costs a Map write and a log entry; a version costs one `Store` object, made at most once per step, and
 *   its contents are built when it is first read (see `StoreLog`).
 * - A version read after any number of later writes shows the group as it was when the version was made.
 */
export class JoinGroup<L extends KubernetesObject, R extends KubernetesObject> {
  readonly members = new Map<string, R>();
  private log: StoreLog<R>;
  /** The left object with this join key, and its key; further left objects sharing the key in `others`. */
  leftKey: string | undefined;
  left: L | undefined;
  others: Map<string, L> | undefined;
  /** Whether this step changed the members (the group is then on the step's list of changed groups). */
  changed = false;

  constructor(
    readonly joinKey: string,
    private readonly empty: Store<R>,
  ) {
    this.log = new StoreLog(empty, 32, this.members);
  }

  /** Puts `object` under `key`; false when it was there already (nothing changed). */
  set(key: string, object: R): boolean {
    if (this.members.get(key) === object) return false;
    this.members.set(key, object);
    this.log.set(key, object);
    return true;
  }

  /** Removes `key`; false when the group did not hold it. */
  delete(key: string): boolean {
    if (!this.members.delete(key)) return false;
    this.log.delete(key);
    return true;
  }

  /** The members as they are now (the same `Store` until the next write). */
  current(): Store<R> {
    if (this.members.size > 0) return this.log.snapshot();
    // Emptied: its history goes (versions made before keep it), and it starts again from the empty store.
    this.log = new StoreLog(this.empty, 32, this.members);
    return this.empty;
  }

  /** Files the left object `left` (key `key`) under this join key, or replaces it. */
  setLeft(key: string, left: L): void {
    if (this.leftKey === undefined || this.leftKey === key) {
      this.leftKey = key;
      this.left = left;
    } else {
      (this.others ??= new Map()).set(key, left);
    }
  }

  /** Takes the left object with key `key` out. */
  deleteLeft(key: string): void {
    if (this.leftKey === key) {
      const next = this.others?.entries().next();
      if (next === undefined || next.done === true) {
        this.leftKey = undefined;
        this.left = undefined;
      } else {
        [this.leftKey, this.left] = next.value;
        this.others!.delete(this.leftKey);
      }
    } else {
      this.others?.delete(key);
    }
    if (this.others?.size === 0) this.others = undefined;
  }

  /** Whether the group holds nothing, left or right: it can be dropped. */
  get unused(): boolean {
    return this.leftKey === undefined && this.members.size === 0;
  }
}

/** The row of `left` with `right` as its group: a plain frozen object. */
export function joinRow<L extends KubernetesObject, R extends KubernetesObject>(
  left: L,
  right: Store<R>,
): JoinRow<L, R> {
  return Object.freeze({ metadata: left.metadata!, left, right });
}
