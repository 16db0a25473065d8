/**
 * Keeps updates that changed `metadata.resourceVersion`: any real write.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { updatePredicate } from './changed.js';
import type { EventPredicate } from './types.js';

/**
 * Passes an `updated` event only when `metadata.resourceVersion` differs between `old` and `object`;
 * controller-runtime's `ResourceVersionChangedPredicate`.
 *
 * # Guarantees
 * - `added`, `deleted` (including tombstones) and `resync` events always pass.
 *
 * # Caveats
 * - The informer already emits a distinct `resync` type, so this predicate does not drop resyncs the way the
 *   controller-runtime one does; use `not(eventType('resync'))` for that. What it does drop is an update that
 *   carries no new version (for example a replayed or synthesised event).
 * - resourceVersions are compared as opaque strings, never ordered, as the API conventions require.
 */
export function resourceVersionChanged<T extends KubernetesObject = KubernetesObject>(): EventPredicate<T> {
  return updatePredicate<T>((old, object) => old.metadata?.resourceVersion !== object.metadata?.resourceVersion);
}
