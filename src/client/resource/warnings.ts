/**
 * Requests of the client layer, with their API warnings delivered.
 */
import { tap } from 'rxjs';
import type { Observable } from 'rxjs';
import { ApiError, deliverWarnings } from '../../transport/index.js';
import type { Transport, TransportRequest, TransportResponse, WarningHandler } from '../../transport/index.js';

/**
 * `transport.request(request)`, with the warnings of its answer handed to `handler` (through `deliverWarnings`)
 * before the answer, or the `ApiError` of a refusal, reaches the subscriber. Every writer of the client layer sends
 * through it, so no warning is dropped on the way.
 */
export function requestWithWarnings(transport: Transport, request: TransportRequest, handler: WarningHandler): Observable<TransportResponse> {
  const warn = (texts: readonly string[] | undefined): void => deliverWarnings(handler, request.method, request.path, texts);
  return transport.request(request).pipe(
    tap({ next: (response) => warn(response.warnings), error: (error: unknown) => warn(error instanceof ApiError ? error.warnings : []) }),
  );
}
