/**
 * The engine under every trigger operator: event in, validated triggers out, bad mappings reported.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import type { InformerEvent } from '../../informer/index.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileTrigger } from '../reconcile/index.js';
import { eventKey, eventReason, eventTypeOf } from './loose-event.js';
import { KeyMappingError } from './types.js';
import type { KeyMapping } from './types.js';

/** Reports a problem with the current event; the mapper keeps going. */
export type Complain = (message: string, details?: { value?: unknown; cause?: unknown }) => void;

/** A mapper that may also report problems it skipped over. */
export type Mapper<T extends KubernetesObject> = (event: InformerEvent<T>, complain: Complain) => KeyMapping;

/**
 * Runs `mapper` on every event and emits its triggers in order.
 *
 * Bare keys, and triggers without a reason, get the event's reason (`updated Pod default/a`). A throw, a
 * non-key value or an empty key becomes a {@link KeyMappingError} for `onError`; the valid part of the mapping is
 * still emitted, and the output never errors because of the mapper.
 */
export function keyMapper<T extends KubernetesObject>(
  mapper: Mapper<T>,
  onError: ((error: Error) => void) | undefined,
): (source: Observable<InformerEvent<T>>) => Observable<ReconcileTrigger> {
  return (source) =>
    new Observable<ReconcileTrigger>((subscriber) =>
      source.subscribe({
        next(event) {
          // Collect first and emit after: an error thrown downstream must not be reported as the mapper's.
          for (const trigger of collect(mapper, event, onError)) subscriber.next(trigger);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}

function collect<T extends KubernetesObject>(
  mapper: Mapper<T>,
  event: InformerEvent<T>,
  onError: ((error: Error) => void) | undefined,
): ReconcileTrigger[] {
  const out: ReconcileTrigger[] = [];
  const complain: Complain = (message, details = {}) =>
    reportError(
      new KeyMappingError(`${message} (${eventTypeOf(event)} ${eventKey(event) ?? '<no key>'})`, {
        eventType: eventTypeOf(event),
        key: eventKey(event) ?? '<no key>',
        ...details,
      }),
      onError,
    );
  let reason: string | undefined;
  const defaultReason = () => (reason ??= eventReason(event));
  try {
    const mapped = mapper(event, complain);
    if (mapped === undefined || mapped === null) return out;
    if (typeof mapped === 'string' || !isIterable(mapped)) {
      pushTrigger(out, mapped, defaultReason, complain);
    } else {
      for (const item of mapped) pushTrigger(out, item, defaultReason, complain);
    }
  } catch (cause) {
    complain('key mapper threw; keys mapped before the throw were kept', { cause });
  }
  return out;
}

function pushTrigger(out: ReconcileTrigger[], value: unknown, defaultReason: () => string, complain: Complain): void {
  if (typeof value === 'string') {
    if (value === '') complain('key mapper returned an empty key', { value });
    else out.push({ key: value, reason: defaultReason() });
    return;
  }
  if (typeof value === 'object' && value !== null && 'key' in value) {
    const { key, reason } = value as { key: unknown; reason?: unknown };
    if (typeof key !== 'string' || key === '') {
      complain('key mapper returned a trigger without a non-empty string key', { value });
      return;
    }
    if (reason === undefined) {
      out.push({ key, reason: defaultReason() });
    } else if (typeof reason === 'string') {
      out.push({ key, reason });
    } else {
      complain('key mapper returned a trigger whose reason is not a string; the event reason was used', { value });
      out.push({ key, reason: defaultReason() });
    }
    return;
  }
  complain('key mapper returned a value that is neither a key nor a { key, reason } trigger', { value });
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function'
  );
}
