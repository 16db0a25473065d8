/**
 * Reading what an informer event is about, defensively: these helpers run on input we did not produce.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '../../objects/index.js';
import { LOW_PRIORITY } from '../reconcile/index.js';

/** The parts of an event the trigger layer reads; every field may be missing on malformed input. */
export interface LooseEvent {
  readonly type?: unknown;
  readonly key?: unknown;
  readonly object?: KubernetesObject;
  readonly old?: KubernetesObject;
  readonly stateUnknown?: unknown;
  readonly fromList?: unknown;
}

/** The event's own key: its `key` field, else the key of its object; `undefined` when neither yields one. */
export function eventKey(event: LooseEvent | null | undefined): string | undefined {
  if (typeof event?.key === 'string' && event.key !== '') return event.key;
  try {
    return event?.object ? objectKey(event.object) : undefined;
  } catch {
    return undefined;
  }
}

/** The event's type as text, `'event'` when it has none. */
export function eventTypeOf(event: LooseEvent | null | undefined): string {
  return typeof event?.type === 'string' && event.type !== '' ? event.type : 'event';
}

/**
 * A one-line account of what happened, used as a trigger reason: `added Pod default/a`,
 * `deleted (state unknown) Pod default/a`, `resync Node n1`. The kind is left out when the object has none
 * (metadata-only or typed objects often lack it).
 */
export function eventReason(event: LooseEvent | null | undefined): string {
  const type = eventTypeOf(event);
  const verb = type === 'deleted' && event?.stateUnknown === true ? 'deleted (state unknown)' : type;
  const kind = event?.object?.kind;
  const subject = typeof kind === 'string' && kind !== '' ? `${kind} ` : '';
  return `${verb} ${subject}${eventKey(event) ?? '<no key>'}`;
}

/**
 * The priority a trigger of this event gets unless its mapping sets one: low for a `resync` and for what a list
 * delivered (`fromList`: the initial list, a relist, a late subscriber's replay), as controller-runtime lowers its
 * initial list and resyncs; `undefined` (the operator's normal) for a live change.
 */
export function eventPriority(event: LooseEvent | null | undefined): number | undefined {
  return event?.type === 'resync' || event?.fromList === true ? LOW_PRIORITY : undefined;
}
