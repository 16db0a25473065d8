/**
 * The engine under every view: read input snapshots as diffs, let the view's logic rewrite rows, publish the
 * rewritten rows as an informer's deltas.
 * @internal
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type Subscription } from 'rxjs';
import { messageOf } from '../describe/index.js';
import { informerFromSource } from '../informer/index.js';
import { Store, diffStores, type StoreChange } from '../store/index.js';
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
 * `input` as the engine reads it: the engine only diffs snapshots and hands the changes to the view's own logic,
 * which knows their type. (`Store<T>` is invariant in `T`, so no plain conversion exists.)
 */
export function untyped<T extends KubernetesObject>(input: ViewInput<T>): ViewInput<KubernetesObject> {
  return input as unknown as ViewInput<KubernetesObject>;
}

/**
 * A {@link View} over `inputs`, maintained by the logic `start` makes for each run.
 *
 * Each run keeps the rows in a Map (the truth the logic reads and writes) and hands what a step changed to an
 * `informerFromSource` as one batch of `modified`/`deleted` deltas, at most one per key, followed by a bookmark
 * that keeps the view's resourceVersion `''`. So the informer applies each step as exactly one snapshot, and
 * everything an informer promises (replay, ordering, re-entrancy, ref-counting) holds for the view. Before every
 * input is synced nothing is published; then all rows go out as one relist, which is what makes the view synced.
 */
export function derivedView<V extends KubernetesObject>(
  name: string, inputs: readonly ViewInput<KubernetesObject>[], start: () => ViewLogic<V>, options: ViewOptions<V> = {},
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

  const source$ = new Observable<readonly WatchEvent<V>[]>((subscriber) => {
    const logic = start();
    const rows = new Map<string, V>();
    /** The keys this step wrote, with the row each held before the step. */
    const touched = new Map<string, V | undefined>();
    let problems: WatchEvent<V>[] = [];
    let published = false;
    const read: (Store<KubernetesObject> | undefined)[] = inputs.map(() => undefined);
    const latest: (Store<KubernetesObject> | undefined)[] = inputs.map(() => undefined);
    const remember = (key: string): void => {
      if (!touched.has(key)) touched.set(key, rows.get(key));
    };
    const writer: RowWriter<V> = {
      get: (key) => rows.get(key),
      set: (key, row) => {
        remember(key);
        rows.set(key, row);
      },
      delete: (key) => {
        if (!rows.has(key)) return;
        remember(key);
        rows.delete(key);
      },
      problem: (message, key) => {
        problems.push({ type: 'problem', problem: { reason: 'TransformFailed', message, count: 0, ...(key === undefined ? {} : { key }) } });
      },
    };

    /** Reads input `i` from the snapshot read last to its latest one. */
    const consume = (i: number): void => {
      const snapshot = latest[i]!;
      const changes = diffStores(read[i] ?? EMPTY, snapshot);
      read[i] = snapshot;
      if (changes.length === 0) return;
      try {
        logic.apply(i, changes, writer);
      } catch (error) {
        // The logic guards every user function; a throw here is a bug of the view, reported rather than fatal.
        writer.problem(`${name}: failed to apply ${changes.length} change(s) of input ${i + 1}: ${messageOf(error)}`);
      }
    };

    const flush = (): void => {
      const batch = problems;
      problems = [];
      if (!published) {
        touched.clear();
        if (read.every((snapshot) => snapshot?.synced === true)) {
          published = true;
          batch.push({ type: 'relistStarted' });
          for (const row of rows.values()) batch.push({ type: 'listed', object: row });
          batch.push({ type: 'relistDone', resourceVersion: '' });
        }
      } else if (touched.size > 0) {
        let moved = false;
        for (const [key, before] of touched) {
          const now = rows.get(key);
          if (now === before) continue;
          moved = true;
          batch.push(now === undefined ? { type: 'deleted', object: before! } : { type: 'modified', object: now });
        }
        touched.clear();
        if (moved) batch.push({ type: 'bookmark', resourceVersion: '' });
      }
      if (batch.length > 0) subscriber.next(batch);
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
    const receive = (i: number, snapshot: Store<KubernetesObject>): void => {
      latest[i] = snapshot;
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
    const subscriptions = inputs.map((input, i) => input.store$.subscribe({
      next: (snapshot) => receive(i, snapshot),
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        completed += 1;
        if (completed < inputs.length) return;
        scheduled?.unsubscribe();
        scheduled = undefined;
        run();
        subscriber.complete();
      },
    }));
    return () => {
      for (const subscription of subscriptions) subscription.unsubscribe();
      scheduled?.unsubscribe();
    };
  });

  const informer = informerFromSource<V>(source$, options.indexers === undefined ? {} : { indexers: options.indexers });
  return Object.freeze({ ...informer, changes$: informer.store$.pipe(diffSnapshots<V>()) });
}
