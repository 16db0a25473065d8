/**
 * `reduceStore`: the operator that folds reflector deltas into a stream of store snapshots.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type OperatorFunction } from 'rxjs';
import type { WatchEvent } from '../watch/index.js';
import { applyWatchEvents, initialStoreState } from './apply-watch-events.js';
import { Store } from './store.js';
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
 * Folds `WatchEvent`s into store snapshots with `applyWatchEvents`, one event per step.
 *
 * # Guarantees
 * - Emits once per event that produced a new snapshot or a problem, synchronously, in order; events that change
 *   nothing (a `listed` item buffered for a relist, a `deleted` of an unknown key with no version) emit nothing.
 * - Each subscription starts from its own empty (or `initial`) store: the operator holds no shared state.
 * - Errors and completion of the source pass through unchanged.
 *
 * # Caveats
 * - `status` events are dropped; route them before this operator if you need them (the informer does).
 */
export function reduceStore<T extends KubernetesObject>(
  options: ReduceStoreOptions<T> = {},
): OperatorFunction<WatchEvent<T>, StoreUpdate<T>> {
  return (source) => new Observable<StoreUpdate<T>>((subscriber) => {
    const reducer = storeReducer(options);
    return source.subscribe({
      next: (event) => {
        const update = reducer(event);
        if (update !== undefined) subscriber.next(update);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
  });
}

/**
 * A stateful step function over `applyWatchEvents`: feed it events, get an update when something changed.
 * Shared by {@link reduceStore} and the informer so that both apply exactly the same rules.
 * @internal
 */
export function storeReducer<T extends KubernetesObject>(
  options: ReduceStoreOptions<T> = {},
): ((event: WatchEvent<T>) => StoreUpdate<T> | undefined) & { readonly current: () => Store<T> } {
  let state = initialStoreState(options.initial ?? Store.empty<T>(options));
  const step = (event: WatchEvent<T>): StoreUpdate<T> | undefined => {
    const before = state.store;
    const result = applyWatchEvents(state, [event]);
    state = result.state;
    if (state.store === before && result.problems.length === 0) return undefined;
    return { store: state.store, changes: result.changes, problems: result.problems };
  };
  return Object.assign(step, { current: () => state.store });
}
