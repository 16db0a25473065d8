/**
 * `reduceStore`: the operator that folds reflector deltas into a stream of store snapshots.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type OperatorFunction } from 'rxjs';
import type { ReflectorDelta, WatchEvent } from '../watch/index.js';
import { applyWatchBatch, initialStoreState, sameChanges } from './apply-watch-events.js';
import { Store as StoreClass } from './store.js';
import type { Store } from 'rxkube';
import type { StoreChange, StoreOptions, StoreProblem } from './types.js';

/** One applied step: the snapshot it produced, the changes that led there and any problems reported. */
export interface StoreUpdate<T extends KubernetesObject = KubernetesObject> {
  /** The snapshot after the step. */
  readonly store: Store<T>;
  /** What changed, in the order the deltas were applied. */
  readonly changes: readonly StoreChange<T>[];
  /** The problems the step ran into. */
  readonly problems: readonly StoreProblem[];
}

/** Options for {@link reduceStore}. */
export interface ReduceStoreOptions<T extends KubernetesObject> extends StoreOptions<T> {
  /** Start from this snapshot instead of an empty store; its indexers win over `indexers`. */
  readonly initial?: Store<T>;
}

/**
 * Folds `WatchEvent`s, or batches of them (arrays: the deltas that arrived together), into store snapshots.
 *
 * # Guarantees
 * - One snapshot per batch: the deltas of one emission are applied in one Immer `produce` and emitted as one
 *   update, except where one snapshot could not show every change exactly: the batch is cut before a delta that
 *   changes a key the batch already changed, and around a relist's swap (see `applyWatchBatch`). A single event is
 *   a batch of one.
 * - In every update, each change's key holds exactly that change's result in `store`; `store` may also hold the
 *   other changes of the same update (earlier and later ones, of other keys). `changes` are in delta order.
 * - Emits once per step that produced a new snapshot or a problem, synchronously, in order; steps that change
 *   nothing (`listed` items buffered for a relist, a `deleted` of an unknown key with no version) emit nothing.
 * - The same deltas lead to the same final store and the same changes however they are split into batches.
 * - Each subscription starts from its own empty (or `initial`) store: the operator holds no shared state.
 * - Errors and completion of the source pass through unchanged.
 *
 * # Caveats
 * - `status` and `problem` events are dropped; route them before this operator if you need them (the informer
 *   does).
 * - `store.resourceVersion` is the version after the update's last delta.
 */
export function reduceStore<T extends KubernetesObject>(
  options: ReduceStoreOptions<T> = {},
): OperatorFunction<WatchEvent<T> | readonly WatchEvent<T>[], StoreUpdate<T>> {
  return (source) =>
    new Observable<StoreUpdate<T>>((subscriber) => {
      const reducer = storeReducer(options);
      return source.subscribe({
        next: (input) => {
          const events = isBatch(input) ? input : [input];
          for (let from = 0; from < events.length && !subscriber.closed; ) {
            const { update, next } = reducer.step(events, from);
            if (update !== undefined) subscriber.next(update);
            from = next;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/** Whether a source emission is a batch of deltas rather than one delta. */
export function isBatch<T extends KubernetesObject, E extends ReflectorDelta<T> = WatchEvent<T>>(
  input: E | readonly E[],
): input is readonly E[] {
  return Array.isArray(input);
}

/** A stateful reducer over `applyWatchBatch`; see {@link storeReducer}. @internal */
export interface StoreReducer<T extends KubernetesObject> {
  /**
   * Applies `events[from…]` as far as one exact snapshot goes; returns the update (undefined when nothing changed
   * and nothing was reported) and the index of the first delta it did not apply (> `from`).
   */
  step(
    events: readonly ReflectorDelta<T>[],
    from: number,
  ): { readonly update: StoreUpdate<T> | undefined; readonly next: number };
  /** The latest snapshot. */
  current(): Store<T>;
}

/**
 * A stateful step function over `applyWatchBatch`: feed it batches of events, get an update per exact snapshot.
 * Shared by {@link reduceStore} and the informer so that both apply exactly the same rules.
 *
 * # Guarantees
 * - A step that throws changes nothing: the reducer stays at the last good state, so the caller may skip the
 *   failing delta (the informer applies the rest one at a time) and carry on.
 * @internal
 */
export function storeReducer<T extends KubernetesObject>(options: ReduceStoreOptions<T> = {}): StoreReducer<T> {
  let state = initialStoreState(options.initial ?? StoreClass.empty<T>(options));
  return {
    step(events, from) {
      const before = state.store;
      const result = applyWatchBatch(state, events, from);
      state = result.state;
      const update =
        state.store === before && result.problems.length === 0
          ? undefined
          : sameChanges({ store: state.store, problems: result.problems }, result);
      return { update, next: result.next };
    },
    current: () => state.store,
  };
}
