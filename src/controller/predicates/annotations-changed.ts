/**
 * Keeps updates that changed `metadata.annotations`.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { sameStringMap, updatePredicate } from './changed.js';
import type { EventPredicate } from './types.js';

/**
 * Passes an `updated` event only when `metadata.annotations` differ between `old` and `object`;
 * controller-runtime's `AnnotationChangedPredicate`.
 *
 * # Guarantees
 * - `added`, `deleted` (including tombstones) and `resync` events always pass.
 * - Key order does not matter, and a missing `annotations` equals `{}`.
 *
 * # Caveats
 * - Tools write annotations often (`kubectl.kubernetes.io/last-applied-configuration`, rollout restarts), so this
 *   passes more updates than it may seem.
 */
export function annotationsChanged<T extends KubernetesObject = KubernetesObject>(): EventPredicate<T> {
  return updatePredicate<T>((old, object) => !sameStringMap(old.metadata?.annotations, object.metadata?.annotations));
}
