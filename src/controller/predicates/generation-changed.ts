/**
 * Keeps updates that changed `metadata.generation`: spec changes, not status-only writes.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { updatePredicate } from './changed.js';
import type { EventPredicate } from './types.js';

/**
 * Passes an `updated` event only when `metadata.generation` differs between `old` and `object`; controller-runtime's
 * `GenerationChangedPredicate`.
 *
 * # Guarantees
 * - `added`, `deleted` (including tombstones) and `resync` events always pass, as non-update events do in
 *   controller-runtime.
 *
 * # Caveats
 * - Objects whose kind has no `generation` (it stays unset, as for ConfigMaps and Secrets, or for custom resources
 *   without the status subresource, where every write bumps it) either lose every update or keep every one: use
 *   `predicates.resourceVersionChanged()` or a custom predicate for them.
 * - Status-only updates are filtered out, including ones your controller may care about (for example a child's
 *   readiness); for the children of a controller use no predicate or `predicates.labelsChanged()` instead.
 * - In controller-runtime a resync arrives as an update with `old === new` and this predicate drops it. Here a
 *   resync is its own event type and passes, so `resyncPeriod` keeps working; add `not(eventType('resync'))` to
 *   drop resyncs.
 */
export function generationChanged<T extends KubernetesObject = KubernetesObject>(): EventPredicate<T> {
  return updatePredicate<T>((old, object) => old.metadata?.generation !== object.metadata?.generation);
}
