/**
 * The engine under every trigger operator: event (or any input) in, validated triggers out, bad mappings reported.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import type { InformerEvent } from '../../informer/index.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileTrigger } from '../reconcile/index.js';
import { eventKey, eventPriority, eventReason, eventTypeOf } from './loose-event.js';
import { KeyMappingError } from './types.js';
import type { KeyMapping } from './types.js';

/** Reports a problem with the current event; the mapper keeps going. */
export type Complain = (message: string, details?: { value?: unknown; cause?: unknown }) => void;

/** A mapper that may also report problems it skipped over. */
export type Mapper<T extends KubernetesObject> = (event: InformerEvent<T>, complain: Complain) => KeyMapping;

/**
 * Runs `mapper` on every event and emits its triggers in order.
 *
 * Bare keys, and triggers without a reason, get the event's reason (`updated Pod default/a`); bare keys, and triggers
 * without a priority, get the event's priority (low for a resync or a list, see `eventPriority`; none otherwise). A
 * throw, a non-key value or an empty key becomes a {@link KeyMappingError} for `onError`; the valid part of the
 * mapping is still emitted, and the output never errors because of the mapper.
 */
export function keyMapper<T extends KubernetesObject>(
  mapper: Mapper<T>,
  onError: ((error: Error) => void) | undefined,
): (source: Observable<InformerEvent<T>>) => Observable<ReconcileTrigger> {
  return triggerMapper<InformerEvent<T>>(
    mapper,
    {
      type: eventTypeOf,
      key: (event) => eventKey(event) ?? '<no key>',
      reason: (event) => eventReason(event),
      priority: eventPriority,
    },
    onError,
  );
}

/** How {@link triggerMapper} names an input in errors and reasons. */
export interface InputDescription<I> {
  /** What kind of input it is, for `KeyMappingError.eventType` (`added`, `webhook`…). */
  readonly type: (input: I) => string;
  /** The key it is about, for `KeyMappingError.key`, or `'<no key>'`. */
  readonly key: (input: I) => string;
  /**
   * The reason given to bare keys and to triggers without one; called at most once per input, and only when a
   * trigger needs it. It may report a problem of its own through `complain`, and must still return a reason.
   */
  readonly reason: (input: I, complain: Complain) => string;
  /**
   * The priority given to bare keys and to triggers without one (`undefined`: none, the operator's normal); the
   * trigger operators give a list's or a resync's event `LOW_PRIORITY`.
   */
  readonly priority?: (input: I) => number | undefined;
  /** Returns why a key is refused, or `undefined` to accept it; every non-empty string is accepted without it. */
  readonly checkKey?: (key: string) => string | undefined;
}

/**
 * The engine of every trigger operator, for inputs of any kind: runs `mapper` on every input, checks what it
 * returns, fills in reasons, and emits the triggers in order; what is wrong goes to `onError` as a
 * {@link KeyMappingError}, and the valid part of the mapping is still emitted.
 */
export function triggerMapper<I>(
  mapper: (input: I, complain: Complain) => KeyMapping,
  describe: InputDescription<I>,
  onError: ((error: Error) => void) | undefined,
): (source: Observable<I>) => Observable<ReconcileTrigger> {
  return (source) =>
    new Observable<ReconcileTrigger>((subscriber) =>
      source.subscribe({
        next(input) {
          // Collect first and emit after: an error thrown downstream must not be reported as the mapper's.
          for (const trigger of collect(mapper, input, describe, onError)) subscriber.next(trigger);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}

function collect<I>(
  mapper: (input: I, complain: Complain) => KeyMapping,
  input: I,
  describe: InputDescription<I>,
  onError: ((error: Error) => void) | undefined,
): ReconcileTrigger[] {
  const out: ReconcileTrigger[] = [];
  const complain: Complain = (message, details = {}) => {
    const type = describe.type(input);
    const key = describe.key(input);
    reportError(new KeyMappingError(`${message} (${type} ${key})`, { eventType: type, key, ...details }), onError);
  };
  let reason: string | undefined;
  const defaultReason = () => (reason ??= describe.reason(input, complain));
  const priority = describe.priority?.(input);
  try {
    const mapped = mapper(input, complain);
    if (mapped === undefined || mapped === null) return out;
    if (typeof mapped === 'string' || !isIterable(mapped)) {
      pushTrigger(out, mapped, defaultReason, priority, complain, describe.checkKey);
    } else {
      for (const item of mapped) pushTrigger(out, item, defaultReason, priority, complain, describe.checkKey);
    }
  } catch (cause) {
    complain('key mapper threw; keys mapped before the throw were kept', { cause });
  }
  return out;
}

function pushTrigger(
  out: ReconcileTrigger[],
  value: unknown,
  defaultReason: () => string,
  defaultPriority: number | undefined,
  complain: Complain,
  checkKey: ((key: string) => string | undefined) | undefined,
): void {
  const refused = (key: string): boolean => {
    const why = checkKey?.(key);
    if (why !== undefined) complain(`key mapper returned ${JSON.stringify(key)}, which ${why}`, { value });
    return why !== undefined;
  };
  if (typeof value === 'string') {
    if (value === '') complain('key mapper returned an empty key', { value });
    else if (!refused(value)) out.push(withPriority(value, defaultReason(), defaultPriority));
    return;
  }
  if (typeof value === 'object' && value !== null && 'key' in value) {
    const { key, reason, priority } = value as { key: unknown; reason?: unknown; priority?: unknown };
    if (typeof key !== 'string' || key === '') {
      complain('key mapper returned a trigger without a non-empty string key', { value });
      return;
    }
    if (refused(key)) return;
    let chosen = defaultPriority;
    if (Number.isSafeInteger(priority)) chosen = priority as number;
    else if (priority !== undefined)
      complain('key mapper returned a trigger whose priority is not a safe integer; the event priority was used', {
        value,
      });
    if (reason === undefined) {
      out.push(withPriority(key, defaultReason(), chosen));
    } else if (typeof reason === 'string') {
      out.push(withPriority(key, reason, chosen));
    } else {
      complain('key mapper returned a trigger whose reason is not a string; the event reason was used', { value });
      out.push(withPriority(key, defaultReason(), chosen));
    }
    return;
  }
  complain('key mapper returned a value that is neither a key nor a { key, reason } trigger', { value });
}

/** A trigger that carries `priority` only when there is one, so that a live change's trigger stays `{ key, reason }`. */
function withPriority(key: string, reason: string, priority: number | undefined): ReconcileTrigger {
  return priority === undefined ? { key, reason } : { key, reason, priority };
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function'
  );
}
