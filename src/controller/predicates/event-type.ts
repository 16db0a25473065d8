/**
 * Keeps events of the given types.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerEvent } from '../../informer/index.js';
import { predicate } from './predicate.js';
import type { EventPredicate } from './types.js';

const TYPES: ReadonlySet<string> = new Set(['added', 'updated', 'deleted', 'resync']);

/**
 * Passes exactly the events whose `type` is one of `types`: `predicates.eventType('added', 'deleted')` reacts to creation and
 * deletion only; `not(eventType('resync'))` drops resyncs.
 *
 * # Guarantees
 * - Tombstones (`deleted` with `stateUnknown: true`) are `deleted` events and match `'deleted'`.
 *
 * # Caveats
 * - Throws a `TypeError` at once for a type that is not an informer event type, so a typo cannot silently filter
 *   everything out.
 */
export function eventType<T extends KubernetesObject = KubernetesObject>(
  ...types: ReadonlyArray<InformerEvent['type']>
): EventPredicate<T> {
  for (const type of types) {
    if (!TYPES.has(type)) {
      const expected = [...TYPES].join(', ');
      throw new TypeError(`eventType: unknown event type ${JSON.stringify(type)}; expected one of ${expected}`);
    }
  }
  const wanted = new Set<string>(types);
  return predicate<T>((event) => wanted.has(event.type));
}
