/**
 * Object identity: the cache key of an object (`namespace/name` or `name`), as client-go's `MetaNamespaceKeyFunc`
 * spells it, and the check that an object can have one.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Thrown by {@link objectKey} for an object that has no `metadata.name` and so has no key. Not exported: the error of
 * a mistake in the calling code, told apart by its `name`.
 */
export class MissingNameError extends Error {
  /** Always `'MissingNameError'`. */
  override readonly name = 'MissingNameError';
}

/**
 * The key of an object.
 *
 * # Guarantees
 * - `namespace/name` when `metadata.namespace` is a non-empty string, `name` otherwise; the key client-go uses.
 *
 * # Caveats
 * - Throws an `Error` named `MissingNameError` when `metadata.name` is missing or empty: there is no key to give,
 *   and an empty one would silently collide with every other nameless object. Check that the object has a name first
 *   where a throw is not wanted (the class is not exported: it marks a mistake in the calling code, and its `name`
 *   tells it apart).
 */
export function objectKey(object: KubernetesObject): string {
  const name = object?.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    const kind = object?.kind ?? 'object';
    throw new MissingNameError(`${kind} has no metadata.name and cannot be keyed`);
  }
  const namespace = object.metadata?.namespace;
  // join() builds one flat string; a template literal builds a rope (a cons string) that V8 later flattens into a
  // second string, so a key kept by a cache of a million objects would cost 72 bytes instead of 40.
  return typeof namespace === 'string' && namespace !== '' ? [namespace, name].join('/') : name;
}

/** The key for `name` in `namespace` (cluster-scoped when `namespace` is omitted or empty). */
export function keyFor(name: string, namespace?: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** True when `object` is an object with a non-empty string `metadata.name`, i.e. when {@link objectKey} succeeds. */
export function hasName(object: unknown): object is KubernetesObject {
  if (typeof object !== 'object' || object === null) return false;
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null) return false;
  const name = (metadata as { name?: unknown }).name;
  return typeof name === 'string' && name !== '';
}
