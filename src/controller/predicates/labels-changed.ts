/**
 * Keeps updates that changed `metadata.labels`.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { sameStringMap, updatePredicate } from './changed.js';
import type { EventPredicate } from './types.js';

/**
 * Passes an `updated` event only when `metadata.labels` differ between `old` and `object` (any key added, removed
 * or changed); controller-runtime's `LabelChangedPredicate`.
 *
 * # Guarantees
 * - `added`, `deleted` (including tombstones) and `resync` events always pass.
 * - Key order does not matter, and a missing `labels` equals `{}` (controller-runtime's `reflect.DeepEqual`
 *   tells nil from empty; the API server does not, so that difference is never a real change).
 */
export function labelsChanged<T extends KubernetesObject = KubernetesObject>(): EventPredicate<T> {
  return updatePredicate<T>((old, object) => !sameStringMap(old.metadata?.labels, object.metadata?.labels));
}
