/**
 * Lifts a plain event test into an `EventPredicate`: a value and a filtering operator at once.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import type { InformerEvent } from '../../informer/index.js';
import { reportError } from './report.js';
import { PredicateError } from './types.js';
import type { EventPredicate, EventTest, PredicateLike, PredicateOptions } from './types.js';

/**
 * Makes an `EventPredicate` from a test (`predicates.from`): `events$.pipe(predicates.from(e => ...))` filters, `.test` evaluates.
 *
 * # Guarantees
 * - See `EventPredicate`: events the test accepts pass in order; a throwing test keeps the event and reports
 *   a `PredicateError` through `reportError` (to `options.onError` when given); the output never
 *   errors because of the test.
 * - `predicates.from(p)` of something that already has a `test` (an `EventPredicate`) uses that test, so wrapping
 *   is harmless (and is how to give an existing predicate another `onError`).
 *
 * # Caveats
 * - A test returning a non-boolean is read by truthiness, as `Array.prototype.filter` does.
 */
export function predicate<T extends KubernetesObject = KubernetesObject>(
  test: PredicateLike<T>,
  options: PredicateOptions = {},
): EventPredicate<T> {
  const fn = testOf(test);
  const { onError } = options;
  const operator = <U extends T>(source: Observable<InformerEvent<U>>): Observable<InformerEvent<U>> =>
    new Observable<InformerEvent<U>>((subscriber) =>
      source.subscribe({
        next(event) {
          let keep: boolean;
          try {
            // Sound: U extends T and a test only reads. The cast is needed because Store<T> is invariant in T.
            keep = Boolean(fn(event as unknown as InformerEvent<T>));
          } catch (cause) {
            keep = true;
            reportError(new PredicateError(describeKey(event), describeType(event), { cause }), onError);
          }
          // Outside the try: an error thrown downstream is not the predicate's and must not be reported as such.
          if (keep) subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
  return Object.assign(operator, { test: fn });
}

/** The plain test of a predicate-like value. */
export function testOf<T extends KubernetesObject>(p: PredicateLike<T>): EventTest<T> {
  const test: unknown = (p as { test?: unknown } | null | undefined)?.test;
  if (typeof test === 'function') return test as EventTest<T>;
  if (typeof p === 'function') return p as EventTest<T>;
  throw new TypeError(`expected a predicate (an EventPredicate, { test } or (event) => boolean), got ${typeof p}`);
}

function describeKey(event: unknown): string {
  const key = (event as { key?: unknown } | null)?.key;
  return typeof key === 'string' ? key : '<no key>';
}

function describeType(event: unknown): string {
  const type = (event as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : 'event';
}
