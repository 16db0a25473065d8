/**
 * Each informer event to its own object's key.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerEvent } from '../../informer/index.js';
import { eventKey, eventReason } from './loose-event.js';
import { keyMapper } from './key-mapper.js';
import type { TriggerOperator, TriggerOptions } from './types.js';

/**
 * Triggers the object each event is about: `For()` in controller-runtime, the primary resource's own key.
 *
 * # Guarantees
 * - Exactly one trigger per event, in order, keyed `namespace/name` (or `name` when cluster-scoped): the event's
 *   `key`, else the key of its object.
 * - Every event type triggers, tombstones included: a `deleted` event with `stateUnknown: true` (the object vanished
 *   across a relist) still reconciles the key, so cleanup runs.
 * - The reason says what happened: `added Pod default/a`, `updated …`, `deleted …`, `deleted (state unknown) …`,
 *   `resync …`; the kind is included when the object carries one.
 * - An event with no usable key (no `key`, object without `metadata.name`) is reported as a `KeyMappingError` to
 *   `options.onError` (default: `reportError`) instead of being dropped silently; the stream carries on.
 */
export function toKeys(options: TriggerOptions = {}): TriggerOperator {
  const operator = keyMapper<KubernetesObject>((event: InformerEvent, complain) => {
    const key = eventKey(event);
    if (key === undefined) {
      complain('event has neither a key nor an object with metadata.name', { value: event });
      return undefined;
    }
    return { key, reason: eventReason(event) };
  }, options.onError);
  // The mapper only reads fields every InformerEvent has, so it is sound for every object type.
  return operator as unknown as TriggerOperator;
}
