/**
 * The time limit of every write: a request that is not answered in time is aborted and fails with a
 * `TransportError('WriteTimeout')`, so a connection whose peer vanished without a FIN cannot hang a controller.
 */
import { type Observable, type SchedulerLike, catchError, throwError, timeout } from 'rxjs';
import { TransportError, WRITE_TIMEOUT, isWriteTimeout, type TransportRequest } from '../../transport/index.js';

/**
 * Default `writeTimeout`, ms: kube-apiserver's own 60 s request timeout plus 10 s, so that a live server always
 * answers first (with its 504 when the write itself is slow), as `listTimeout` does for reads.
 */
export const DEFAULT_WRITE_TIMEOUT_MS = 70_000;

/** A write's time limit: ms, or `false` for none. */
export type WriteTimeout = number | false;

/** `value` unless it is neither a number of ms > 0 (finite) nor `false`: then a `RangeError` naming `where`. */
export function checkWriteTimeout(where: string, value: unknown): WriteTimeout | undefined {
  if (value === undefined || value === false) return value;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(
      `${where}: writeTimeout must be a finite number of ms > 0, or false for none, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * `write` (one request), aborted by unsubscribing when it has not answered `limit` ms after subscription, on
 * `scheduler`; it then fails with `TransportError('WriteTimeout')`, whose message says that the write may or may not
 * have been applied. With `limit` false, `write` as it is.
 */
export function withWriteTimeout<T>(
  write: Observable<T>,
  request: Pick<TransportRequest, 'method' | 'path'>,
  limit: WriteTimeout,
  scheduler: SchedulerLike,
): Observable<T> {
  if (limit === false) return write;
  return write.pipe(
    timeout({
      first: limit,
      scheduler,
      with: () =>
        throwError(
          () =>
            new TransportError(
              WRITE_TIMEOUT,
              `${request.method} ${request.path}: no answer within ${limit} ms (writeTimeout); the request was ` +
                'aborted, and the server may or may not have applied it: read the object before writing again',
            ),
        ),
    }),
  );
}

/**
 * `once()`, and once more if it fails with a write timeout: for a write that is safe to send twice (server-side
 * apply of the same object: applying it again changes nothing more).
 */
export function retryTimedOutOnce<T>(once: () => Observable<T>): Observable<T> {
  return once().pipe(catchError((error: unknown) => (isWriteTimeout(error) ? once() : throwError(() => error))));
}
