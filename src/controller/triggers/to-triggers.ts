/**
 * Anything from outside Kubernetes (a webhook, a timer, a message queue, another controller's outcomes) to
 * reconcile triggers.
 */
import type { OperatorFunction } from 'rxjs';
import { describeValue, messageOf } from '../../error-messages/index.js';
import type { ReconcileTrigger } from '../index.js';
import { triggerMapper } from './key-mapper.js';
import type { KeyMapping, TriggerOptions } from './types.js';

/** Options of {@link toTriggers}. */
export interface ToTriggersOptions<M> extends TriggerOptions {
  /**
   * Why the keys are triggered: a fixed text (`'webhook'`, `'nightly resync'`) or one made from the message
   * (`(m) => \`queue message ${m.id}\``). Given to every key `fn` returns bare or without a reason. Required, so
   * that a run's reasons always say where it came from.
   */
  readonly reason: string | ((message: M) => string);
  /**
   * Which keys are accepted:
   * - `'object'` (default): object keys, `namespace/name` or `name`: at most one `/`, no empty part, no
   *   whitespace or control character, at most 317 characters (a 63-character namespace, `/`, a 253-character
   *   name). What a webhook or a queue sends is outside input; a key that no object can have is reported, not
   *   queued.
   * - `'any'`: any non-empty string, for reconcile functions whose keys mean something else.
   */
  readonly keys?: 'object' | 'any';
  /** Names the source in errors (`KeyMappingError.eventType`). Default `'external'`. */
  readonly source?: string;
}

/** The longest object key: a 63-character namespace, `/`, a 253-character name. */
const MAX_KEY_LENGTH = 63 + 1 + 253;
// Whitespace, C0 and C1 controls, and DEL, as code point ranges.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 and C1 control ranges are what a key must not hold
const UNSAFE = /[\s\u0000-\u001f\u007f-\u009f]/u;

/** Why `key` cannot be an object key, or `undefined` when it can. */
function objectKeyProblem(key: string): string | undefined {
  if (key.length > MAX_KEY_LENGTH) return `is longer than the ${MAX_KEY_LENGTH} characters of any object key`;
  if (UNSAFE.test(key)) return 'holds whitespace or a control character, which no object key does';
  const slash = key.indexOf('/');
  if (slash >= 0 && key.indexOf('/', slash + 1) >= 0)
    return 'has more than one "/": an object key is namespace/name or name';
  if (slash === 0 || slash === key.length - 1) return 'has an empty namespace or name';
  return undefined;
}

/**
 * Maps each message of an outside source to reconcile triggers: the same keyed queue, predicates-by-key and
 * reasons as informer triggers, for webhooks, timers, message queues and other controllers' outcomes.
 *
 * ```ts
 * const fromQueue$ = messages$.pipe(toTriggers((m) => m.objectKey, { reason: (m) => `queue message ${m.id}` }));
 * merge(pods.events$.pipe(toKeys()), fromQueue$).pipe(reconcile(sync, { lookup: pods, gate: pods.synced$ }));
 * ```
 *
 * `fn` returns what `mapKeys` accepts: a key, a `{ key, reason? }` trigger, any iterable of those, or
 * `undefined`/`null` for none.
 *
 * # Guarantees
 * - Triggers are emitted synchronously, in the order `fn` returned them, message after message; every trigger
 *   has a reason (its own, or `options.reason`).
 * - Keys are checked (see {@link ToTriggersOptions.keys}): outside input never reaches the queue as a key no object
 *   can have.
 * - Bad output is never an error of the stream and never dropped silently: a throwing `fn` or `reason`, a refused
 *   key, an empty key or a value of the wrong type goes to `options.onError` (default: `reportError`) as a
 *   `KeyMappingError`, and the valid triggers of the same message are still emitted (with the reason
 *   `'<source> (reason unavailable)'` when `reason` threw).
 *
 * # Caveats
 * - A trigger says "look at this key", not "this happened": the reconcile reads the state from its `lookup` when
 *   it runs, coalesces triggers of a waiting key, and holds triggers until its gate opens. Carry data the state
 *   cannot tell in the reason, or somewhere the reconcile can read it.
 * - To filter, use RxJS `filter` on the triggers (by key), or on the messages before this operator; the event
 *   predicates test informer events, which an outside message is not.
 */
export function toTriggers<M>(
  fn: (message: M) => KeyMapping,
  options: ToTriggersOptions<M>,
): OperatorFunction<M, ReconcileTrigger> {
  if (typeof fn !== 'function') throw new TypeError('toTriggers: fn must be a function (message) => keys');
  const { reason, keys = 'object', source = 'external' } = options ?? ({} as ToTriggersOptions<M>);
  if (typeof reason !== 'function' && (typeof reason !== 'string' || reason === '')) {
    throw new TypeError(
      `toTriggers: reason must be a non-empty string or a function (message) => string, got ${describeValue(reason)}`,
    );
  }
  if (keys !== 'object' && keys !== 'any')
    throw new TypeError(`toTriggers: keys must be 'object' or 'any', got ${describeValue(keys)}`);
  if (typeof source !== 'string' || source === '') throw new TypeError('toTriggers: source must be a non-empty string');
  const operator = triggerMapper<M>(
    (message) => fn(message),
    {
      type: () => source,
      key: () => '<no key>',
      reason: (message, complain) => {
        if (typeof reason === 'string') return reason;
        try {
          const text = reason(message);
          if (typeof text === 'string' && text !== '') return text;
          complain(`reason returned ${describeValue(text)}, not a non-empty string; the triggers were kept`, {
            value: text,
          });
        } catch (cause) {
          complain(`reason threw; the triggers were kept: ${messageOf(cause)}`, { cause });
        }
        return `${source} (reason unavailable)`;
      },
      ...(keys === 'object' ? { checkKey: objectKeyProblem } : {}),
    },
    options.onError,
  );
  return operator;
}
