/**
 * The shared shape of the "did X change on update" predicates.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { predicate } from './predicate.js';
import type { EventPredicate } from './types.js';

/**
 * A predicate that judges only `updated` events, by `changed(old, object)`; every other event passes.
 *
 * A malformed update (missing `old` or `object`) passes too: letting a doubtful event through costs one reconcile,
 * dropping it could cost a missed change.
 */
export function updatePredicate<T extends KubernetesObject = KubernetesObject>(
  changed: (old: T, object: T) => boolean,
): EventPredicate<T> {
  return predicate<T>((event) => {
    if (event.type !== 'updated') return true;
    if (!event.old || !event.object) return true;
    return changed(event.old, event.object);
  });
}

/**
 * Whether two string maps (labels, annotations) hold the same entries. A missing map and an empty one are equal:
 * the API server does not distinguish them (`omitempty`), so treating them as different would be a false change.
 */
export function sameStringMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const aKeys = a ? Object.keys(a) : [];
  const bKeys = b ? Object.keys(b) : [];
  if (aKeys.length !== bKeys.length) return false;
  for (const key of aKeys) {
    if (!Object.hasOwn(b!, key) || a![key] !== b![key]) return false;
  }
  return true;
}
