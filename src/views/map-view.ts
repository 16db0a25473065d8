/**
 * `mapView`: a projection of one informer or view, keeping only the objects it maps to something.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describeValue, messageOf } from '../error-messages/index.js';
import { deepFreeze, hasName, objectKey } from '../objects/index.js';
import type { StoreChange } from '../store/index.js';
import { derivedView, untyped } from './derived-view.js';
import type { View, ViewInput, ViewOptions } from './types.js';

/** Options of `views.map`. */
export interface MapViewOptions<V extends KubernetesObject> extends ViewOptions<V> {
  /**
   * Says when a new projection is the same as the row already there; the row is then kept and no change is
   * published. Default: identity (`===`). A projection that builds a new object each time publishes an update for
   * every change of its source unless this says otherwise.
   */
  readonly equals?: (previous: V, next: V) => boolean;
  /** Names the view in problem messages. Default `'mapView'`. */
  readonly name?: string;
}

/**
 * A derived store with the projection of each source object, under the source object's key: a narrower object
 * for a dashboard, a filtered subset, a computed field. `undefined` or `null` leaves the object out.
 *
 * ```ts
 * const phases = mapView(pods, (pod) => ({ metadata: pod.metadata, phase: pod.status?.phase ?? 'Unknown' }), {
 *   equals: (a, b) => a.phase === b.phase,
 * });
 * ```
 *
 * # Guarantees
 * - Everything a `views.View` guarantees: for every source object, the view holds `project(object, key)` under
 *   its key (or nothing), exactly, as computed from scratch on the source snapshot it reflects.
 * - `project` runs once per changed source object, never over the whole source after the first snapshot.
 * - Projections are deep-frozen (the parts they share with the frozen source cost nothing).
 * - A projection that throws, or returns something keyed other than its source (`metadata.name` and
 *   `metadata.namespace` must spell the source key: keep the source's `metadata`), is reported on `problems$` with
 *   the key, and that object is left out of the view until a later change projects it well.
 *
 * # Caveats
 * - `project` must depend on the object alone (and its key): it is not called again when anything else changes.
 */
export function mapView<T extends KubernetesObject, V extends KubernetesObject>(
  source: ViewInput<T>,
  project: (object: T, key: string) => V | null | undefined,
  options: MapViewOptions<V> = {},
): View<V> {
  const name = options.name ?? 'mapView';
  if (typeof project !== 'function')
    throw new TypeError(`${name}: the projection must be a function (object, key) => value`);
  return projectedView(name, 'the projection', source, project, options);
}

/** `views.map` with `what` naming the user function in problem messages (`filterView` says "the test"). */
export function projectedView<T extends KubernetesObject, V extends KubernetesObject>(
  name: string,
  what: string,
  source: ViewInput<T>,
  project: (object: T, key: string) => V | null | undefined,
  options: MapViewOptions<V>,
): View<V> {
  const equals = options.equals;
  if (equals !== undefined && typeof equals !== 'function') throw new TypeError(`${name}: equals must be a function`);
  return derivedView<V>(
    name,
    [untyped(source)],
    () => ({
      apply(_input, changes, rows) {
        for (const change of changes as readonly StoreChange<T>[]) {
          const { key } = change;
          if (change.type === 'deleted') {
            rows.delete(key);
            continue;
          }
          let value: V | null | undefined;
          try {
            value = project(change.object, key);
          } catch (error) {
            rows.problem(`${name}: ${what} threw on ${key}; it is left out: ${messageOf(error)}`, key);
            rows.delete(key);
            continue;
          }
          if (value === null || value === undefined) {
            rows.delete(key);
            continue;
          }
          if ((value as unknown) !== change.object && !keyedAs(value, key)) {
            rows.problem(
              `${name}: the projection of ${key} is ${describeKey(value)}; keep the source's metadata.name and metadata.namespace. It is left out`,
              key,
            );
            rows.delete(key);
            continue;
          }
          const previous = rows.get(key);
          if (previous !== undefined && equals !== undefined) {
            let same = false;
            try {
              same = equals(previous, value) === true;
            } catch (error) {
              // Publishing the new row is never wrong; keeping the old one might be.
              rows.problem(`${name}: equals threw on ${key}; the new projection is used: ${messageOf(error)}`, key);
            }
            if (same) continue;
          }
          try {
            rows.set(key, deepFreeze(value));
          } catch (error) {
            rows.problem(
              `${name}: the projection of ${key} cannot be frozen; it is left out: ${messageOf(error)}`,
              key,
            );
            rows.delete(key);
          }
        }
      },
    }),
    options,
  );
}

function keyedAs(value: KubernetesObject, key: string): boolean {
  return hasName(value) && objectKey(value) === key;
}

function describeKey(value: unknown): string {
  return hasName(value) ? `keyed ${objectKey(value)}` : `${describeValue(value)}, without metadata.name`;
}
