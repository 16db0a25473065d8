/**
 * The predicate vocabulary: a test over informer events that is also a filtering operator.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { messageOf } from '../../error-messages/index.js';
import type { InformerEvent } from '../../informer/index.js';

/** A plain test over one informer event: `true` keeps the event. */
export type EventTest<T extends KubernetesObject = KubernetesObject> = (event: InformerEvent<T>) => boolean;

/**
 * A predicate over informer events that is both a value and an operator.
 *
 * - As an operator, `events$.pipe(p)` keeps the events `p.test` accepts. The call signature is generic, so a
 *   predicate written for any object keeps the element type of the stream it filters (`InformerEvent<V1Pod>` stays
 *   `InformerEvent<V1Pod>`).
 * - As a value, `p.test(event)` answers for one event; it is a standalone function (it does not use `this`), so
 *   `events.filter(p.test)` works, and the combinators `predicates.and`, `.or` and `.not` compose it.
 *
 * # Guarantees
 * - The operator emits exactly the events `test` accepts, in order, synchronously; completion and errors of the
 *   source pass through unchanged.
 * - When `test` throws inside the operator, the event is kept (fail-open: a level-triggered controller survives an
 *   extra reconcile, not a missed one) and a `PredicateError` goes to the predicate's error handler; the
 *   stream never errors because of a predicate.
 *
 * # Caveats
 * - Calling `test` directly does not catch: a throwing test throws to its caller.
 */
export interface EventPredicate<T extends KubernetesObject = KubernetesObject> {
  /** The predicate as an operator: keeps the events whose test passes (and those whose test throws). */
  <U extends T>(source: Observable<InformerEvent<U>>): Observable<InformerEvent<U>>;
  /** The predicate as a plain function. */
  readonly test: EventTest<T>;
}

/**
 * Anything the combinators accept: a plain `EventTest`, or anything with a `test` (every `EventPredicate`
 * has one). Spelt `{ test }` rather than `EventPredicate` so that an inline arrow function still gets its parameter
 * type from context.
 */
export type PredicateLike<T extends KubernetesObject = KubernetesObject> =
  | EventTest<T>
  | {
      /** The test: true keeps the event. */
      readonly test: EventTest<T>;
    };

/** Options of `predicates.from`. */
export interface PredicateOptions {
  /**
   * Where a `PredicateError` goes when the test throws inside the operator. Defaults to RxJS's
   * `config.onUnhandledError` when one is set, else `process.emitWarning` (printed once per error on stderr).
   */
  readonly onError?: (error: Error) => void;
}

/**
 * A predicate's test threw while filtering; the event was kept. `key` and `eventType` name the event, `cause` is
 * what the test threw.
 */
export class PredicateError extends Error {
  /** Always `'PredicateError'`. */
  override readonly name = 'PredicateError';
  constructor(
    /** The key of the event the test threw on. */
    readonly key: string,
    /** Its type (`added`, `updated`, …). */
    readonly eventType: string,
    options: { cause: unknown },
  ) {
    super(`predicate threw on ${eventType} ${key}; the event was kept: ${messageOf(options.cause)}`, options);
  }
}

/** Receives errors a predicate operator caught; see {@link PredicateOptions.onError}. */
export type ErrorHandler = NonNullable<PredicateOptions['onError']>;
