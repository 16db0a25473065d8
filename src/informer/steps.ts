/**
 * What informers built by `informerFromSource` share with the views, beyond the public `Informer`: the exact
 * changes of each step, so a view reads an input without diffing its snapshots, and a way to publish a step the
 * view has built itself, without the reducer.
 * @internal
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { Store, StoreChange } from '../store/index.js';

/** One published step of an informer: the snapshots before and after it, and exactly what changed between them. */
export interface InformerStep<T extends KubernetesObject> {
  readonly previous: Store<T>;
  readonly store: Store<T>;
  readonly changes: readonly StoreChange<T>[];
}

/** The key of an informer's stream of steps (see {@link stepsOf}). */
export const STEPS: unique symbol = Symbol('rxkube.informer.steps');

/**
 * The steps of an informer built by `informerFromSource`, or `undefined` for any other `{ store$ }`. On subscribe it
 * emits the current snapshot (read it whole, or diff it from one held before), then every step as it is published,
 * exactly where `store$` emits it. Subscribing holds a reference on the informer, as any of its streams does.
 */
export function stepsOf<T extends KubernetesObject>(
  source: object,
): Observable<Store<T> | InformerStep<T>> | undefined {
  return (source as { readonly [STEPS]?: Observable<Store<T> | InformerStep<T>> })[STEPS];
}

const PREPARED: unique symbol = Symbol('rxkube.informer.prepared');

/** A step built outside the reducer, for `informerFromSource` to publish as it is. */
export interface PreparedStep<T extends KubernetesObject> {
  readonly [PREPARED]: true;
  /** The next snapshot: derived from the informer's current one (its `previous`). */
  readonly store: Store<T>;
  /** Exactly what changed from the current snapshot to `store`, at most one change per key. */
  readonly changes: readonly StoreChange<T>[];
}

/** A {@link PreparedStep}: what a source emits instead of deltas when it builds its snapshots itself. */
export function preparedStep<T extends KubernetesObject>(
  store: Store<T>,
  changes: readonly StoreChange<T>[],
): PreparedStep<T> {
  return new Prepared(store, changes);
}

/**
 * A class, not an object literal: a literal with a computed (symbol) key is built by a runtime call on every step.
 * The mark sits on the prototype, so a step costs one small object.
 */
class Prepared<T extends KubernetesObject> implements PreparedStep<T> {
  declare readonly [PREPARED]: true;
  constructor(
    readonly store: Store<T>,
    readonly changes: readonly StoreChange<T>[],
  ) {}

  static {
    Object.defineProperty(Prepared.prototype, PREPARED, { value: true });
  }
}

/** Whether a source emission is a {@link PreparedStep}. */
export function isPrepared<T extends KubernetesObject>(input: unknown): input is PreparedStep<T> {
  return typeof input === 'object' && input !== null && (input as { [PREPARED]?: unknown })[PREPARED] === true;
}
