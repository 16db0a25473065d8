/**
 * Cache keys: `namespace/name` for namespaced objects and `name` for cluster-scoped ones, as client-go's
 * `MetaNamespaceKeyFunc` spells them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

/** Thrown by {@link objectKey} for an object that has no `metadata.name` and so cannot be cached. */
export class MissingNameError extends Error {
  override readonly name = 'MissingNameError';
}

/**
 * The cache key of an object.
 *
 * # Guarantees
 * - `namespace/name` when `metadata.namespace` is a non-empty string, `name` otherwise; the same key client-go uses.
 *
 * # Caveats
 * - Throws {@link MissingNameError} when `metadata.name` is missing or empty; the reducer catches it and reports a
 *   `MissingName` problem rather than crashing.
 */
export function objectKey(object: KubernetesObject): string {
  const name = object?.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    const kind = object?.kind ?? 'object';
    throw new MissingNameError(`${kind} has no metadata.name and cannot be cached`);
  }
  const namespace = object.metadata?.namespace;
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${name}` : name;
}

/** The key for `name` in `namespace` (cluster-scoped when `namespace` is omitted or empty). */
export function keyFor(name: string, namespace?: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
