/**
 * The groups of a join, kept as mutable Maps with a log of their writes; each version of a group becomes an
 * immutable `Store` only when a row's `right` is read.
 * @internal
 */
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import { editStore, type Store } from '../store/index.js';
import type { JoinRow } from './types.js';

/**
 * How many writes a group logs before it folds them into a `Store` (when nobody read it meanwhile): bounds what an
 * unread group keeps alive and what a read of an old version replays.
 */
const LOG_LIMIT = 32;

/**
 * A `Store` of a group and the writes made to the group since, in order (`key, object` pairs; `undefined` for a
 * deletion). The log only grows until the group starts a new chain, so a version is a prefix of it, and a prefix,
 * once written, never changes: that is what keeps every version readable after later writes.
 */
class Chain<R extends KubernetesObject> {
  readonly log: (string | R | undefined)[] = [];
  /** The last version built from this chain, and how many log entries it covers, so reads in order are cheap. */
  private built: Store<R>;
  private builtLength = 0;

  constructor(private readonly base: Store<R>) {
    this.built = base;
  }

  /** The group after the first `length` writes of the log. */
  storeAt(length: number): Store<R> {
    const fromBuilt = length >= this.builtLength;
    const start = fromBuilt ? this.builtLength : 0;
    const from = fromBuilt ? this.built : this.base;
    if (start === length) return from;
    const editor = editStore(from);
    const { log } = this;
    for (let i = start * 2; i < length * 2; i += 2) {
      const key = log[i] as string;
      const object = log[i + 1] as R | undefined;
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
 * One version of a group, as rows hold it: the `Store` is built on the first read and kept, so every row of this
 * version (several left objects with one join key, and the next snapshots while the group does not change) gets
 * the same `Store`.
 */
export class GroupVersion<R extends KubernetesObject> {
  #store: Store<R> | undefined;

  constructor(
    private readonly chain: Chain<R> | undefined,
    private readonly length: number,
    store?: Store<R>,
  ) {
    this.#store = store;
  }

  /** A version that is `store` already (the empty group). */
  static of<R extends KubernetesObject>(store: Store<R>): GroupVersion<R> {
    return new GroupVersion<R>(undefined, 0, store);
  }

  /** The group as it was at this version. */
  store(): Store<R> {
    return (this.#store ??= this.chain!.storeAt(this.length));
  }
}

/**
 * A group of right objects: what it holds now, in a Map, and its chain of versions.
 *
 * # Guarantees
 * - A write costs a Map write and a log entry; a version costs one small object, made at most once per step.
 * - A version read after any number of later writes shows the group as it was when the version was made.
 */
export class JoinGroup<R extends KubernetesObject> {
  readonly members = new Map<string, R>();
  private chain: Chain<R>;
  private version: GroupVersion<R> | undefined;

  constructor(empty: Store<R>) {
    this.chain = new Chain(empty);
  }

  /** Puts `object` under `key`; false when it was there already (nothing changed). */
  set(key: string, object: R): boolean {
    if (this.members.get(key) === object) return false;
    this.members.set(key, object);
    this.write(key, object);
    return true;
  }

  /** Removes `key`; false when the group did not hold it. */
  delete(key: string): boolean {
    if (!this.members.delete(key)) return false;
    this.write(key, undefined);
    return true;
  }

  /** The group as it is now, as one version (the same one until the next write). */
  current(): GroupVersion<R> {
    return (this.version ??= new GroupVersion(this.chain, this.chain.log.length / 2));
  }

  private write(key: string, object: R | undefined): void {
    let { chain } = this;
    if (chain.log.length >= LOG_LIMIT * 2) {
      // Fold the log into a Store and start a new chain; versions made before keep the old chain.
      chain = this.chain = new Chain(chain.storeAt(chain.log.length / 2));
    }
    chain.log.push(key, object);
    this.version = undefined;
  }
}

/** The descriptor of every row's `right`, shared so that rows keep one hidden class (a getter per row would not). */
let rightDescriptor: PropertyDescriptor;

/**
 * A row of a join. `right` is an own, enumerable property, as on a plain `{ metadata, left, right }` (spread, JSON
 * and deep equality see it), but an accessor: it builds the group's `Store` on the first read.
 */
class LazyJoinRow<L extends KubernetesObject, R extends KubernetesObject> implements JoinRow<L, R> {
  declare readonly right: Store<R>;
  readonly #right: GroupVersion<R>;

  static {
    rightDescriptor = {
      get(this: LazyJoinRow<KubernetesObject, KubernetesObject>) {
        return this.#right.store();
      },
      enumerable: true,
    };
  }

  constructor(
    readonly metadata: V1ObjectMeta,
    readonly left: L,
    right: GroupVersion<R>,
  ) {
    this.#right = right;
    Object.defineProperty(this, 'right', rightDescriptor);
    Object.freeze(this);
  }
}

/** The row of `left` with `right` as its group. */
export function joinRow<L extends KubernetesObject, R extends KubernetesObject>(
  left: L,
  right: GroupVersion<R>,
): JoinRow<L, R> {
  return new LazyJoinRow(left.metadata!, left, right);
}
