/**
 * Derived views over informers, kept incrementally: `views.map` and `views.filter` project one store, `views.join`
 * joins two by a key on each side (Pods to their Node), `views.owned` follows owner references (Deployment →
 * ReplicaSet → Pod, nested), and `views.aggregate` counts and sums per group. Every view is an informer itself: a
 * reconcile `lookup`, a trigger source (`views.toJoinKeys`: reconcile a Node when the set of its Pods changes), and
 * the input of another view. `docs/composition.md` says what each guarantees about consistency and cost.
 *
 * @example
 * ```ts
 * import { views } from 'rxkube';
 *
 * const podsByNode = views.join(nodes, pods, {
 *   leftKey: (node) => node.metadata?.name,
 *   rightKey: (pod) => pod.spec?.nodeName,
 * });
 * podsByNode.current().get('node-1')?.right.size; // how many Pods node-1 runs
 * ```
 * @packageDocumentation
 */
export type { AggregateRow, JoinKeys, JoinRow, SnapshotDiff, View, ViewInput, ViewOptions } from './types.js';
export { diffSnapshots } from './diff-snapshots.js';
export { mapView as map, type MapViewOptions } from './map-view.js';
export { filterView as filter } from './filter-view.js';
export { joinView as join, type JoinViewOptions } from './join-view.js';
export { ownedView as owned, type OwnedViewOptions } from './owned-view.js';
export { aggregateView as aggregate, type AggregateViewOptions } from './aggregate-view.js';
export { toJoinKeys, type JoinTriggerOperator, type ToJoinKeysOptions } from './to-join-keys.js';
