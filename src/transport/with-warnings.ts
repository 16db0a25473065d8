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

/**
 * Delivers the API warnings of the answers to one request (`method` on `path`) to `handler`, through
 * `deliverWarnings`: `accepted` takes an accepted answer's texts (a transport's `onWarnings`), `refused` takes
 * whatever the request failed with and delivers the warnings an `ApiError` carries (other errors carry none).
 */
export interface RequestWarnings {
  /** Delivers the texts of an accepted answer's warnings. */
  readonly accepted: (texts: readonly string[]) => void;
  /** Delivers the warnings on the error a request failed with, if it is an `ApiError`; never throws. */
  readonly refused: (error: unknown) => void;
}

/** The {@link RequestWarnings} of one request; for a request sent some other way than the helpers below (a watch). */
export function warningsOfRequest(handler: WarningHandler, method: RequestMethod, path: string): RequestWarnings {
  const accepted = (texts: readonly string[]): void => deliverWarnings(handler, method, path, texts);
  return {
    accepted,
    refused: (error) => {
      if (error instanceof ApiError) accepted(error.warnings);
    },
  };
}

/**
 * `transport.request(request)`, with the warnings of its answer handed to `handler` (through `deliverWarnings`)
 * before the answer, or the `ApiError` of a refusal, reaches the subscriber.
 */
export function requestWithWarnings(
  transport: Transport,
  request: TransportRequest,
  handler: WarningHandler,
): Observable<TransportResponse> {
  const warnings = warningsOfRequest(handler, request.method, request.path);
  return transport
    .request(request)
    .pipe(tap({ next: (response) => warnings.accepted(response.warnings ?? []), error: warnings.refused }));
}

/**
 * `transport.get(path, query)`, with the warnings of its answer handed to `handler` as a `GET` of `path` (through
 * `deliverWarnings`): an accepted answer's before its body is emitted, a refusal's before its `ApiError` reaches the
 * subscriber.
 */
export function getWithWarnings(
  transport: Transport,
  path: string,
  query: QueryParams,
  handler: WarningHandler,
  accept?: string,
): Observable<unknown> {
  const warnings = warningsOfRequest(handler, 'GET', path);
  return transport
    .get(path, query, { ...(accept === undefined ? {} : { accept }), onWarnings: warnings.accepted })
    .pipe(tap({ error: warnings.refused }));
}
