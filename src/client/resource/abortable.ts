/**
 * Ties a cold Observable to an `AbortSignal`, the way `fetch` ties a request to one.
 */
import { Observable } from 'rxjs';

/**
 * `source`, cancelled by `signal`.
 *
 * # Guarantees
 * - An already aborted signal errors at once with its `reason`, without subscribing to `source` (nothing is sent).
 * - Aborting later unsubscribes from `source` (which aborts its request) and errors with the signal's `reason`.
 * - The abort listener is removed when the subscription ends, however it ends: no listener leaks on a long-lived
 *   signal shared by many calls.
 */
export function withSignal<T>(source: Observable<T>, signal: AbortSignal | undefined): Observable<T> {
  if (signal === undefined) return source;
  return new Observable<T>((subscriber) => {
    if (signal.aborted) {
      subscriber.error(signal.reason);
      return undefined;
    }
    const onAbort = (): void => {
      inner.unsubscribe();
      subscriber.error(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // A plain observer, not `subscriber` itself: RxJS would adopt a Subscriber, and unsubscribing `inner` on abort
    // would then close the outer subscriber before it could report the reason.
    const inner = source.subscribe({
      next: (value) => subscriber.next(value),
      error: (err: unknown) => subscriber.error(err),
      complete: () => subscriber.complete(),
    });
    return () => {
      signal.removeEventListener('abort', onAbort);
      inner.unsubscribe();
    };
  });
}
