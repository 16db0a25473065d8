/**
 * `joinView`: left objects with the right objects that share a join key, kept incrementally.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describeValue, messageOf } from '../error-messages/index.js';
import { emptySyncedStore, type StoreChange } from '../store/index.js';
import { derivedView, untyped, type RowWriter, type ViewLogic } from './derived-view.js';
import { JoinGroup, joinRow } from './join-groups.js';
import { hasKey, keysOf, type KeySet, type ProblemSink } from './keys.js';
import type { JoinKeys, JoinRow, View, ViewInput, ViewOptions } from './types.js';

/** Options of `views.join`: the key function of each side. */
export interface JoinViewOptions<L extends KubernetesObject, R extends KubernetesObject>
  extends ViewOptions<JoinRow<L, R>> {
  /** The join key of a left object, e.g. a Node's `metadata.name`; `null`, `undefined` or `''` for none. */
  readonly leftKey: (object: L) => string | null | undefined;
  /**
   * The join key or keys of a right object, e.g. a Pod's `spec.nodeName`; a right object with several keys joins
   * every left object of each.
   */
  readonly rightKey: (object: R) => JoinKeys;
  /** Names the view in problem messages. Default `'joinView'`. */
  readonly name?: string;
}

/**
 * A view with one row per left object: the object, and a `Store` of the right objects whose join key is the left
 * object's (a left outer join). Pods by Node:
 *
 * ```ts
 * const podsByNode = joinView(nodes, pods, {
 *   leftKey: (node) => node.metadata?.name,
 *   rightKey: (pod) => pod.spec?.nodeName,
 * });
 * podsByNode.current().get('node-1')?.right.size; // how many Pods node-1 runs
 * ```
 *
 * # Guarantees
 * - Everything a `views.View` guarantees; a row is a `views.JoinRow` keyed by its left object's key.
 * - Exact: each row's `right` holds exactly the right objects whose keys include the left object's join key, as
 *   computed from scratch from the two input snapshots the view reflects (property-tested over random interleavings
 *   of both inputs' deltas, relists with tombstones and batches included).
 * - Every left object has a row, with an empty `right` when nothing joins it or it has no join key. Right objects
 *   whose key matches no left object are kept, and join the left object that takes that key when it comes.
 * - Incremental: a right object's change edits the group(s) it leaves and enters (a Map write and a log entry
 *   each, O(1)) and rewrites the rows of the left objects with those keys; a left object's change rewrites its own
 *   row. A step's changes to one group make one new version of it. A group's `Store` is built when a row's `right`
 *   is first read, from the last one built (O(k · log group size) for the k writes since, k ≤ 32), or bottom-up
 *   from a copy of the group (O(group size), at most 128) when no version was read during its last 32 writes; the
 *   view's own snapshots are built on read in the same way (see `views.View`).
 * - A key function that throws or returns something that is not a key is reported on `problems$` (with the
 *   object's key); the object joins with its valid keys only (none, after a throw), and the view carries on.
 *
 * # Caveats
 * - Key functions must be pure, as a store's indexers: a right object is taken out of its groups by calling
 *   `rightKey` again on its previous state.
 * - A left object has one join key; several left objects may share one (each row then holds the same group, and a
 *   change to that group rewrites all of them).
 * - A right object changing rewrites its left object's row (a new `right` Store and a new row object) even when
 *   only that object's status changed: `right` holds the objects. To react only when membership changes, use
 *   `views.toJoinKeys`.
 */
export function joinView<L extends KubernetesObject, R extends KubernetesObject>(
  left: ViewInput<L>,
  right: ViewInput<R>,
  options: JoinViewOptions<L, R>,
): View<JoinRow<L, R>> {
  const name = options?.name ?? 'joinView';
  if (typeof options?.leftKey !== 'function')
    throw new TypeError(`${name}: leftKey must be a function (left object) => key`);
  if (typeof options.rightKey !== 'function')
    throw new TypeError(`${name}: rightKey must be a function (right object) => key or keys`);
  return derivedView<JoinRow<L, R>>(
    name,
    [untyped(left), untyped(right)],
    () => joinLogic<L, R>(name, options.leftKey, options.rightKey),
    options,
  );
}

/** One run of a join: the right objects by join key, and the left objects' keys by join key. */
function joinLogic<L extends KubernetesObject, R extends KubernetesObject>(
  name: string,
  leftKey: (object: L) => string | null | undefined,
  rightKey: (object: R) => JoinKeys,
): ViewLogic<JoinRow<L, R>> {
  const empty = emptySyncedStore<R>();
  /**
   * Join key → its group: the right objects with that key and the left objects with it. A group is dropped when
   * it holds neither.
   */
  const groups = new Map<string, JoinGroup<L, R>>();
  const groupOf = (joinKey: string): JoinGroup<L, R> => {
    let group = groups.get(joinKey);
    if (group === undefined) groups.set(joinKey, (group = new JoinGroup(joinKey, empty)));
    return group;
  };
  const dropIfUnused = (group: JoinGroup<L, R>): void => {
    if (group.unused && !group.changed) groups.delete(group.joinKey);
  };

  const leftJoinKey = (object: L, key: string, report: ProblemSink | undefined): string | undefined => {
    let value: unknown;
    try {
      value = leftKey(object);
    } catch (error) {
      report?.problem(`${name}: leftKey threw on ${key}; it joins nothing: ${messageOf(error)}`, key);
      return undefined;
    }
    if (value === null || value === undefined || value === '') return undefined;
    if (typeof value !== 'string') {
      report?.problem(`${name}: leftKey returned ${describeValue(value)} for ${key}, not a key; it joins nothing`, key);
      return undefined;
    }
    return value;
  };

  const applyLeft = (changes: readonly StoreChange<L>[], rows: RowWriter<JoinRow<L, R>>): void => {
    for (const change of changes) {
      const { key } = change;
      const before =
        change.type === 'added'
          ? undefined
          : leftJoinKey(change.type === 'updated' ? change.old : change.object, key, undefined);
      const after = change.type === 'deleted' ? undefined : leftJoinKey(change.object, key, rows);
      if (before !== undefined && before !== after) {
        const group = groups.get(before);
        if (group !== undefined) {
          group.deleteLeft(key);
          dropIfUnused(group);
        }
      }
      if (change.type === 'deleted') {
        rows.delete(key);
      } else if (after === undefined) {
        rows.set(key, joinRow(change.object, empty));
      } else {
        const group = groupOf(after);
        group.setLeft(key, change.object);
        rows.set(key, joinRow(change.object, group.current()));
      }
    }
  };

  /** The groups whose members this step changed, in the order they came (each marked `changed`). */
  const changedGroups: JoinGroup<L, R>[] = [];
  const what = `${name}: rightKey`;

  const remove = (joinKey: string, key: string): void => {
    const group = groups.get(joinKey);
    if (group?.delete(key) === true) markChanged(group);
  };
  const put = (joinKey: string, key: string, object: R): void => {
    const group = groupOf(joinKey);
    if (group.set(key, object)) markChanged(group);
  };
  const markChanged = (group: JoinGroup<L, R>): void => {
    if (group.changed) return;
    group.changed = true;
    changedGroups.push(group);
  };

  const applyRight = (changes: readonly StoreChange<R>[], rows: RowWriter<JoinRow<L, R>>): void => {
    try {
      editGroups(changes, rows);
    } finally {
      // A step that failed half-way must not leave its changed groups to the next one.
      for (const group of changedGroups) group.changed = false;
      changedGroups.length = 0;
    }
  };

  // Each loop in a function of its own, with nothing after it: the first synced step runs these loops over every
  // object, and V8 compiles a long-running loop where it runs (OSR) before the code after it ever ran; that code,
  // compiled without type feedback, then deoptimised on later steps that reached it, again and again.
  const editGroups = (changes: readonly StoreChange<R>[], rows: RowWriter<JoinRow<L, R>>): void => {
    editEach(changes, rows);
    publishEach(rows);
  };
  const editEach = (changes: readonly StoreChange<R>[], rows: RowWriter<JoinRow<L, R>>): void => {
    for (let i = 0; i < changes.length; i++) editRight(changes[i]!, rows);
  };
  const publishEach = (rows: RowWriter<JoinRow<L, R>>): void => {
    for (let i = 0; i < changedGroups.length; i++) publishGroup(changedGroups[i]!, rows);
  };

  const editRight = (change: StoreChange<R>, rows: RowWriter<JoinRow<L, R>>): void => {
    const { key } = change;
    const before: KeySet =
      change.type === 'added'
        ? undefined
        : keysOf(rightKey, change.type === 'updated' ? change.old : change.object, what, key, undefined);
    const after: KeySet = change.type === 'deleted' ? undefined : keysOf(rightKey, change.object, what, key, rows);
    if (typeof before === 'string') {
      if (!hasKey(after, before)) remove(before, key);
    } else if (before !== undefined) {
      for (const joinKey of before) if (!hasKey(after, joinKey)) remove(joinKey, key);
    }
    if (change.type === 'deleted') return;
    if (typeof after === 'string') put(after, key, change.object);
    else if (after !== undefined) for (const joinKey of after) put(joinKey, key, change.object);
  };

  /** Gives the rows of `group`'s left objects the group's version after this step. */
  const publishGroup = (group: JoinGroup<L, R>, rows: RowWriter<JoinRow<L, R>>): void => {
    group.changed = false;
    const right = group.current();
    const { leftKey: key, left, others } = group;
    if (key === undefined) {
      dropIfUnused(group);
      return;
    }
    rows.set(key, joinRow(left!, right));
    if (others !== undefined) for (const [otherKey, other] of others) rows.set(otherKey, joinRow(other, right));
  };

  return {
    apply(input, changes, rows) {
      if (input === 0) applyLeft(changes as readonly StoreChange<L>[], rows);
      else applyRight(changes as readonly StoreChange<R>[], rows);
    },
  };
}
