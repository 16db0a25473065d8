/**
 * Negation of a predicate.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { predicate, testOf } from './predicate.js';
import type { EventPredicate, PredicateLike } from './types.js';

/**
 * Passes exactly the events `p` rejects.
 *
 * # Guarantees
 * - `not(not(p))` ≡ `p`.
 *
 * # Caveats
 * - An inline arrow function argument gets its event type from `T`, which defaults to `KubernetesObject` unless the
 *   context fixes it; write `not<V1Pod>(…)` to read typed fields in it.
 * - Negation flips the default: `not(generationChanged())` drops every `added`, `deleted` and `resync` event,
 *   because `predicates.generationChanged()` passes them. Combine with `predicates.eventType` to say which events you mean.
 * - In the operator form, an event on which `p` throws is still kept (the operator fails open), not negated.
 */
export function not<T extends KubernetesObject = KubernetesObject>(p: PredicateLike<T>): EventPredicate<T> {
  const test = testOf(p);
  return predicate<T>((event) => !test(event));
}
