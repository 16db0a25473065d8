/**
 * Views: derived caches over informers (projections, filters, joins, owner trees, aggregates), maintained
 * incrementally, each an informer itself; and the trigger operator for join rows.
 */
export type { AggregateRow, JoinKeys, JoinRow, SnapshotDiff, View, ViewInput, ViewOptions } from './types.js';
export { diffSnapshots } from './diff-snapshots.js';
export { mapView, type MapViewOptions } from './map-view.js';
export { filterView } from './filter-view.js';
export { joinView, type JoinViewOptions } from './join-view.js';
export { ownedView, type OwnedViewOptions } from './owned-view.js';
export { aggregateView, type AggregateViewOptions } from './aggregate-view.js';
export { toJoinKeys, type JoinTriggerOperator, type ToJoinKeysOptions } from './to-join-keys.js';
export * as views from './views-namespace.js';
