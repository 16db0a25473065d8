/**
 * Requests with their API warnings delivered: what every part that talks to the API server sends through, so that
 * no warning is dropped on the way, whether the server accepted the request or refused it.
 */
import { tap } from 'rxjs';
import type { Observable } from 'rxjs';
import { ApiError } from './errors.js';
import type { QueryParams } from './http.js';
import type { RequestMethod, TransportRequest, TransportResponse } from './request.js';
import type { Transport } from './transport.js';
import { deliverWarnings, type WarningHandler } from './warnings.js';

/** Delivers the warnings of a refusal (an `ApiError`) with `warn`; other errors carry none. */
function warningsOfRefusal(warn: (texts: readonly string[]) => void): (error: unknown) => void {
  return (error) => {
    if (error instanceof ApiError) warn(error.warnings);
  };
}

/** `(texts) => deliverWarnings(handler, method, path, texts)`: the warnings of answers to one request. */
function warningsFor(handler: WarningHandler, method: RequestMethod, path: string): (texts: readonly string[]) => void {
  return (texts) => deliverWarnings(handler, method, path, texts);
}

/**
 * `transport.request(request)`, with the warnings of its answer handed to `handler` (through `deliverWarnings`)
 * before the answer, or the `ApiError` of a refusal, reaches the subscriber.
 */
export function requestWithWarnings(transport: Transport, request: TransportRequest, handler: WarningHandler): Observable<TransportResponse> {
  const warn = warningsFor(handler, request.method, request.path);
  return transport.request(request).pipe(tap({ next: (response) => warn(response.warnings ?? []), error: warningsOfRefusal(warn) }));
}

/**
 * `transport.get(path, query)`, with the warnings of its answer handed to `handler` as a `GET` of `path` (through
 * `deliverWarnings`): an accepted answer's before its body is emitted, a refusal's before its `ApiError` reaches the
 * subscriber.
 */
export function getWithWarnings(
  transport: Transport, path: string, query: QueryParams, handler: WarningHandler, accept?: string,
): Observable<unknown> {
  const warn = warningsFor(handler, 'GET', path);
  return transport.get(path, query, { ...(accept === undefined ? {} : { accept }), onWarnings: warn }).pipe(tap({ error: warningsOfRefusal(warn) }));
}
