/**
 * The trigger vocabulary: what key mappers return, the operator shape, and the error reported for bad mappings.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { InformerEvent } from '../../informer/index.js';
import type { ReconcileTrigger } from '../reconcile/index.js';

/**
 * What a key mapper may return for one event: a key, a trigger, any iterable of those (an array, a Set, a
 * generator), or `undefined`/`null` for none.
 */
export type KeyMapping = string | ReconcileTrigger | Iterable<string | ReconcileTrigger> | undefined | null;

/**
 * An operator from informer events of any object type to reconcile triggers. Its call signature is generic, so one
 * value pipes after `events$` of any kind (`Store<T>` makes `InformerEvent<T>` invariant in `T`, so a plain
 * `OperatorFunction<InformerEvent<KubernetesObject>, …>` would not accept `InformerEvent<V1Pod>`).
 */
export interface TriggerOperator {
  /** Maps each event of `source` to zero or more triggers. */
  <T extends KubernetesObject>(source: Observable<InformerEvent<T>>): Observable<ReconcileTrigger>;
}

/** Options every trigger operator accepts. */
export interface TriggerOptions {
  /**
   * Receives each {@link KeyMappingError}. Defaults to RxJS's `config.onUnhandledError` when set, else
   * `process.emitWarning`; see `reportError`.
   */
  readonly onError?: (error: Error) => void;
}

/**
 * A key mapping went wrong for one event: the mapper threw, returned something that is not a key, or the event or
 * an owner reference was malformed. The rest of the event's keys, and the stream, carry on.
 *
 * `eventType` and `key` name the event (`'<no key>'` when it had none); `value` is the offending value, when
 * there was one; `cause` is what was thrown, when something was.
 */
export class KeyMappingError extends Error {
  /** Always `'KeyMappingError'`. */
  override readonly name = 'KeyMappingError';
  /** The type of the event being mapped (`added`, `updated`, …). */
  readonly eventType: string;
  /** The key of the event being mapped, `'<no key>'` when it had none. */
  readonly key: string;
  /** The offending value, when there was one. */
  readonly value: unknown;
  constructor(message: string, details: { eventType: string; key: string; value?: unknown; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.eventType = details.eventType;
    this.key = details.key;
    this.value = details.value;
  }
}
