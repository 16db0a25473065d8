/**
 * The engine under every view: read each input step's changes, let the view's logic rewrite rows, publish the new
 * snapshot through the informer hub.
 * @internal
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type Subscription } from 'rxjs';
import { messageOf } from '../error-messages/index.js';
import { buildInformer, preparedStep, stepsOf, type InformerStep, type PreparedStep } from '../informer/index.js';
import { Store, StoreLog, diffStores, editStore, type IndexFailure, type StoreChange } from '../store/index.js';
import type { WatchEvent } from '../watch/index.js';
import { diffSnapshots } from './diff-snapshots.js';
import type { View, ViewInput, ViewOptions } from './types.js';

/** Where a view's logic writes its rows during one step. */
export interface RowWriter<V> {
  /** The row under `key`, with this step's writes. */
  get(key: string): V | undefined;
  /** Puts `row` (frozen by the caller) under `key`; writing the row already there changes nothing. */
  set(key: string, row: V): void;
  /** Removes the row under `key`, if any. */
  delete(key: string): void;
  /** Reports a bad result of a user function; the caller leaves the object concerned out. */
  problem(message: string, key?: string): void;
}

/** The incremental part of one view, made afresh for each run of the view. */
export interface ViewLogic<V> {
  /** Applies what changed in input `input` since the snapshot of it read before. */
  apply(input: number, changes: readonly StoreChange<KubernetesObject>[], rows: RowWriter<V>): void;
}

const EMPTY: Store<KubernetesObject> = Store.empty();

/**
 * How many row writes a view's snapshots replay at most when read: its rows are a `StoreLog`, folded into a built
 * `Store` every so many writes. Larger than a join group's (32): a view's store is rewritten on every step, and
 * folding more writes at once copies each touched trie leaf once for all of them.
 */
const ROW_LOG_LIMIT = 256;

/**
 * `input` as the engine reads it: the engine only reads changes and hands them to the view's own logic, which
 * knows their type. (`Store<T>` is invariant in `T`, so no plain conversion exists.)
 */
export function untyped<T extends KubernetesObject>(input: ViewInput<T>): ViewInput<KubernetesObject> {
  return input as unknown as ViewInput<KubernetesObject>;
}

/**
 * A step's changes as the view read them: a watch deletion carries the object's final state from the server, but
 * the view filed the object as it was cached, so a `deleted` change is given the object its `previous` snapshot
 * held (as a diff would give it).
 */
function asRead(step: InformerStep<KubernetesObject>): readonly StoreChange<KubernetesObject>[] {
  let changes = step.changes;
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    if (change.type !== 'deleted') continue;
    const cached = step.previous.get(change.key);
    if (cached === undefined || cached === change.object) continue;
    if (changes === step.changes) changes = [...changes];
    (changes as StoreChange<KubernetesObject>[])[i] = { ...change, object: cached };
  }
  return changes;
}

/**
 * A `views.View` over `inputs`, maintained by the logic `start` makes for each run.
 *
 * Each run reads every input step by step: the changes an informer published with the step when the view read the
 * step before it, else the diff from the snapshot it read last. The logic rewrites rows in a Map of the rows as
 * they are now and a `StoreLog` of their writes; the step's snapshot (built from the log when it is first read)
 * and its exact changes go to `buildInformer` as a prepared step, so the hub
 * every informer has (replay, ordering, re-entrancy, ref-counting) serves the view without a reducer in between.
 * Before every input is synced nothing is published; then every row goes out in one step, which is what makes
 * the view synced.
 */
export function derivedView<V extends KubernetesObject>(
  name: string,
  inputs: readonly ViewInput<KubernetesObject>[],
  start: () => ViewLogic<V>,
  options: ViewOptions<V> = {},
): View<V> {
  if (inputs.length === 0) throw new TypeError(`${name}: a view needs at least one input`);
  inputs.forEach((input, i) => {
    if (typeof (input as Partial<ViewInput> | undefined)?.store$?.subscribe !== 'function') {
      throw new TypeError(`${name}: input ${i + 1} is not an informer or a view (it has no store$)`);
    }
  });
  const { coalesce } = options;
  if (coalesce !== undefined && (typeof coalesce.schedule !== 'function' || typeof coalesce.now !== 'function')) {
    throw new TypeError(`${name}: coalesce must be an RxJS SchedulerLike`);
  }
  const storeOptions = options.indexers === undefined ? {} : { indexers: options.indexers };
  // Validates the indexers now, at the call, as an informer does.
  Store.empty<V>(storeOptions);

  const source$ = new Observable<readonly WatchEvent<V>[] | PreparedStep<V>>((subscriber) => {
    const logic = start();
    /** The view as of the last step: published once every input is synced. */
    let working = Store.empty<V>(storeOptions);
    let published = false;
    /**
     * The rows as they are now, and the log of their writes that the snapshots are built from when read: a step
     * writes Map entries and log entries, not trie nodes, and a snapshot nobody reads is never built.
     */
    const rowsNow = new Map<string, V>();
    let rowLog = new StoreLog(working, ROW_LOG_LIMIT, rowsNow);
    const failures: IndexFailure[] = [];
    /**
     * The keys this step wrote, each with its position in the three arrays that follow: the key, the row it held
     * before the step, and the one it holds now; the first `touchedCount` entries are this step's. The arrays are kept
     * from step to step (and their entries cleared), so that a write allocates nothing.
     */
    const touched = new Map<string, number>();
    let touchedCount = 0;
    const touchedKeys: string[] = [];
    const touchedBefore: (V | undefined)[] = [];
    const touchedAfter: (V | undefined)[] = [];
    let problems: WatchEvent<V>[] = [];
    const read: (Store<KubernetesObject> | undefined)[] = inputs.map(() => undefined);
    const latest: (Store<KubernetesObject> | undefined)[] = inputs.map(() => undefined);
    const latestStep: (InformerStep<KubernetesObject> | undefined)[] = inputs.map(() => undefined);
    /** Records a write of a key that held `previous`. */
    const wrote = (key: string, previous: V | undefined, row: V | undefined): void => {
      const at = touched.get(key);
      if (at !== undefined) {
        touchedAfter[at] = row;
        return;
      }
      touched.set(key, touchedCount);
      touchedKeys[touchedCount] = key;
      touchedBefore[touchedCount] = previous;
      touchedAfter[touchedCount] = row;
      touchedCount += 1;
    };
    const problem = (message: string, key?: string): void => {
      problems.push({
        type: 'problem',
        problem: { reason: 'TransformFailed', message, count: 0, ...(key === undefined ? {} : { key }) },
      });
    };
    const writer: RowWriter<V> = {
      get: (key) => rowsNow.get(key),
      set: (key, row) => {
        const previous = rowsNow.get(key);
        wrote(key, previous, row);
        if (previous === row) return;
        rowsNow.set(key, row);
        rowLog.set(key, row, failures);
      },
      delete: (key) => {
        const previous = rowsNow.get(key);
        if (previous === undefined) return;
        wrote(key, previous, undefined);
        rowsNow.delete(key);
        rowLog.delete(key);
      },
      problem,
    };

    /** Reads input `i` from the snapshot read last to its latest one. */
    const consume = (i: number): void => {
      const snapshot = latest[i]!;
      const step = latestStep[i];
      const changes =
        step !== undefined && step.previous === read[i] && step.store === snapshot
          ? asRead(step)
          : diffStores(read[i] ?? EMPTY, snapshot);
      read[i] = snapshot;
      if (changes.length === 0) return;
      try {
        logic.apply(i, changes, writer);
      } catch (error) {
        // The logic guards every user function; a throw here is a bug of the view, reported rather than fatal.
        problem(`${name}: failed to apply ${changes.length} change(s) of input ${i + 1}: ${messageOf(error)}`);
      }
    };

    const flush = (): void => {
      let changes: StoreChange<V>[] | undefined;
      for (const { name: index, error } of failures)
        problem(`${name}: indexer "${index}" threw; a row is left out of that index: ${messageOf(error)}`);
      failures.length = 0;
      if (touchedCount > 0) {
        const before = working;
        working = rowLog.snapshot();
        if (published) {
          changes = [];
          for (let at = 0; at < touchedCount; at++) {
            const was = touchedBefore[at];
            const now = touchedAfter[at];
            if (now === was) continue;
            const key = touchedKeys[at]!;
            changes.push(
              now === undefined
                ? { type: 'deleted', key, object: was!, stateUnknown: false }
                : was === undefined
                  ? { type: 'added', key, object: now }
                  : { type: 'updated', key, old: was, object: now },
            );
          }
          if (changes.length === 0) working = before;
        }
        touched.clear();
        // Cleared, not truncated, so that the arrays keep their storage; nothing is kept alive by them.
        touchedKeys.fill('', 0, touchedCount);
        touchedBefore.fill(undefined, 0, touchedCount);
        touchedAfter.fill(undefined, 0, touchedCount);
        touchedCount = 0;
      }
      let syncing = false;
      if (!published && read.every((snapshot) => snapshot?.synced === true)) {
        published = true;
        syncing = true;
        working = editStore(working).commit({ synced: true });
        rowLog = new StoreLog(working, ROW_LOG_LIMIT, rowsNow);
        changes = [];
        for (const [key, object] of working.entries()) changes.push({ type: 'added', key, object });
      }
      if (problems.length > 0) {
        const batch = problems;
        problems = [];
        subscriber.next(batch);
      }
      if (changes !== undefined && (changes.length > 0 || syncing)) subscriber.next(preparedStep(working, changes));
    };

    // One step at a time: an input that emits while a step is under way (from a callback the step caused) is read
    // once the step is out.
    const dirty = inputs.map(() => false);
    let busy = false;
    let scheduled: Subscription | undefined;
    const run = (): void => {
      if (busy) return;
      busy = true;
      try {
        for (let i = dirty.indexOf(true); i >= 0; i = dirty.indexOf(true)) {
          if (coalesce === undefined) {
            dirty[i] = false;
            consume(i);
          } else {
            dirty.forEach((wasDirty, j) => {
              dirty[j] = false;
              if (wasDirty) consume(j);
            });
          }
          flush();
          if (subscriber.closed) return;
        }
      } finally {
        busy = false;
      }
    };
    const receive = (
      i: number,
      snapshot: Store<KubernetesObject>,
      step: InformerStep<KubernetesObject> | undefined,
    ): void => {
      latest[i] = snapshot;
      latestStep[i] = step;
      dirty[i] = snapshot !== read[i];
      if (!dirty[i]) return;
      if (coalesce === undefined) {
        run();
      } else {
        scheduled ??= coalesce.schedule(() => {
          scheduled = undefined;
          run();
        });
      }
    };

    let completed = 0;
    const observer = (i: number) => ({
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        completed += 1;
        if (completed < inputs.length) return;
        scheduled?.unsubscribe();
        scheduled = undefined;
        run();
        subscriber.complete();
      },
      next: (value: Store<KubernetesObject> | InformerStep<KubernetesObject>) => {
        if (value instanceof Store) receive(i, value, undefined);
        else receive(i, value.store, value);
      },
    });
    const subscriptions = inputs.map((input, i) =>
      (stepsOf<KubernetesObject>(input) ?? input.store$).subscribe(observer(i)),
    );
    return () => {
      for (const subscription of subscriptions) subscription.unsubscribe();
      scheduled?.unsubscribe();
    };
  });

  const informer = buildInformer<V>(source$, storeOptions);
  return Object.freeze({ ...informer, changes$: informer.store$.pipe(diffSnapshots<V>()) });
}
