/**
 * `aggregateView`: counts and sums of one informer's or view's objects, grouped by a key.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describeValue, messageOf } from '../error-messages/index.js';
import type { StoreChange } from '../store/index.js';
import { derivedView, untyped } from './derived-view.js';
import { forEachKey, keysOf, metadataForKey, type KeySet, type ProblemSink } from './keys.js';
import type { AggregateRow, JoinKeys, View, ViewInput, ViewOptions } from './types.js';

/** Options of `views.aggregate`. */
export interface AggregateViewOptions<T extends KubernetesObject, S extends string = never>
  extends ViewOptions<AggregateRow<S>> {
  /**
   * The group key or keys of an object, spelt as an object key: `namespace/name` or `name` (`default/Running`:
   * Pods per phase per namespace). `null`, `undefined` or `''` counts the object nowhere; an object with several
   * keys counts once in each.
   */
  readonly groupBy: (object: T) => JoinKeys;
  /** Values to sum per group, by name: `{ restarts: (pod) => … }`. Each must return a finite number. */
  readonly sums?: { readonly [name in S]: (object: T) => number };
}

/** One group's running totals. */
interface Totals {
  readonly metadata: AggregateRow['metadata'];
  count: number;
  readonly sums: number[];
}

/**
 * A view with one row per group key: how many objects have that key, and the sums of their values.
 *
 * ```ts
 * const phases = aggregateView(pods, {
 *   groupBy: (pod) => `${pod.metadata?.namespace}/${pod.status?.phase ?? 'Unknown'}`,
 *   sums: { restarts: (pod) => (pod.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0) },
 * });
 * phases.current().get('default/Running')?.count;
 * phases.current().list({ namespace: 'default' }); // every phase in use in default
 * ```
 *
 * # Guarantees
 * - Everything a `views.View` guarantees; rows are `views.AggregateRow`s keyed by their group key, and a group
 *   leaves the view when its count falls to 0.
 * - Exact for counts, and for sums of integers (below 2^53): each row equals the same counts and sums computed from
 *   scratch over the source snapshot the view reflects (property-tested).
 * - Incremental: an object's change subtracts its old values from its old groups and adds its new values to its new
 *   ones; a row is rewritten only when its count or a sum moved, so churn that changes nothing counted (a Pod's
 *   status update within one phase) publishes nothing.
 * - A `groupBy` that throws or returns something that is not a key, a group key no object could have (`/x`,
 *   `x/`), or a sum that throws or is not a finite number, is reported on `problems$` with the object's key: the
 *   object is not counted in that group (or counts 0 in that sum), and the view carries on.
 *
 * # Caveats
 * - `groupBy` and the sums must be pure, as a store's indexers: an object's old contribution is taken off by
 *   calling them again on its previous state.
 * - Sums of fractional values are kept by adding and subtracting, so rounding errors accumulate; sum integers
 *   (millicores, bytes) when exactness matters.
 */
export function aggregateView<T extends KubernetesObject, S extends string = never>(
  source: ViewInput<T>,
  options: AggregateViewOptions<T, S>,
): View<AggregateRow<S>> {
  const { groupBy } = options ?? ({} as AggregateViewOptions<T, S>);
  if (typeof groupBy !== 'function')
    throw new TypeError('aggregateView: groupBy must be a function (object) => group key');
  const sums = Object.entries((options.sums ?? {}) as Record<string, unknown>) as [S, (object: T) => number][];
  for (const [sumName, fn] of sums) {
    if (typeof fn !== 'function')
      throw new TypeError(`aggregateView: sum "${sumName}" must be a function (object) => number`);
  }
  const sumNames = sums.map(([sumName]) => sumName);

  return derivedView<AggregateRow<S>>(
    'aggregateView',
    [untyped(source)],
    () => {
      const groups = new Map<string, Totals>();

      const valuesOf = (object: T, key: string, report: ProblemSink | undefined): number[] =>
        sums.map(([sumName, fn]) => {
          let value: unknown;
          try {
            value = fn(object);
          } catch (error) {
            report?.problem(`aggregateView: sum "${sumName}" threw on ${key}; it counts 0: ${messageOf(error)}`, key);
            return 0;
          }
          if (typeof value === 'number' && Number.isFinite(value)) return value;
          report?.problem(
            `aggregateView: sum "${sumName}" returned ${typeof value === 'number' ? String(value) : describeValue(value)} for ${key}, not a finite number; it counts 0`,
            key,
          );
          return 0;
        });

      const add = (
        groupKeys: KeySet,
        values: readonly number[],
        sign: 1 | -1,
        key: string,
        rows: ProblemSink | undefined,
        touched: Set<string>,
      ): void => {
        forEachKey(groupKeys, (groupKey) => {
          let totals = groups.get(groupKey);
          if (totals === undefined) {
            if (sign < 0) return;
            const metadata = metadataForKey(groupKey);
            if (metadata === undefined) {
              rows?.problem(
                `aggregateView: groupBy returned ${JSON.stringify(groupKey)} for ${key}, which no object key can be (an empty namespace or name); it is not counted there`,
                key,
              );
              return;
            }
            totals = { metadata, count: 0, sums: sumNames.map(() => 0) };
            groups.set(groupKey, totals);
          }
          totals.count += sign;
          for (let i = 0; i < values.length; i++) totals.sums[i]! += sign * values[i]!;
          touched.add(groupKey);
        });
      };

      return {
        apply(_input, changes, rows) {
          const touched = new Set<string>();
          for (const change of changes as readonly StoreChange<T>[]) {
            const { key } = change;
            if (change.type !== 'added') {
              const old = change.type === 'updated' ? change.old : change.object;
              add(
                keysOf(groupBy, old, 'aggregateView: groupBy', key, undefined),
                valuesOf(old, key, undefined),
                -1,
                key,
                undefined,
                touched,
              );
            }
            if (change.type !== 'deleted') {
              add(
                keysOf(groupBy, change.object, 'aggregateView: groupBy', key, rows),
                valuesOf(change.object, key, rows),
                1,
                key,
                rows,
                touched,
              );
            }
          }
          for (const groupKey of touched) {
            const totals = groups.get(groupKey)!;
            if (totals.count <= 0) {
              groups.delete(groupKey);
              rows.delete(groupKey);
              continue;
            }
            const current = rows.get(groupKey);
            if (
              current !== undefined &&
              current.count === totals.count &&
              sumNames.every((sumName, i) => current.sums[sumName] === totals.sums[i])
            )
              continue;
            const sumsRecord = {} as Record<S, number>;
            sumNames.forEach((sumName, i) => {
              sumsRecord[sumName] = totals.sums[i]!;
            });
            rows.set(
              groupKey,
              Object.freeze({ metadata: totals.metadata, count: totals.count, sums: Object.freeze(sumsRecord) }),
            );
          }
        },
      };
    },
    options,
  );
}
