/**
 * Conjunction of predicates.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { predicate, testOf } from './predicate.js';
import type { EventPredicate, PredicateLike } from './types.js';

/**
 * Passes an event when every predicate passes it, evaluated left to right and stopping at the first `false`.
 *
 * # Guarantees
 * - `and()` passes everything (the identity of conjunction); `and(p)` behaves as `p`.
 * - Laws hold pointwise: `and(p, q)` ≡ `and(q, p)` for side-effect-free tests; `not(and(p, q))` ≡
 *   `or(not(p), not(q))` (De Morgan).
 * - Arguments are checked at once: a value that is neither a function nor has a `test` function throws a
 *   `TypeError` here, not later in the stream.
 *
 * # Caveats
 * - An inline arrow function argument gets its event type from `T`, which defaults to `KubernetesObject` when the
 *   other arguments do not fix it; write `and<V1Pod>(…)` to read typed fields in it.
 */
export function and<T extends KubernetesObject = KubernetesObject>(
  ...predicates: PredicateLike<T>[]
): EventPredicate<T> {
  const tests = predicates.map((p) => testOf(p));
  return predicate<T>((event) => tests.every((test) => test(event)));
}
