/**
 * A transport that records every request of the client and how it ended, around a real one: what the contract
 * specs (and an example's race against kube-apiserver, which keeps no request log) use to prove how many requests a
 * call sent and what each got back.
 * @module
 */
import { Observable } from 'rxjs';
import { ApiError, type Connection } from '../../src/index.js';
import { transportOf, type Transport, type TransportRequest } from '../../src/extend.js';

/** One request and its outcome: the HTTP status, or `error <code>` / `error <name>`. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: unknown;
  outcome: string;
  /** The error it failed with, if it did. */
  error?: unknown;
}

/** `transport` plus the log of its `request` calls (reads and watches pass through unrecorded). */
export function recordingTransport(connection: Connection): { transport: Transport; requests: RecordedRequest[] } {
  const inner = transportOf(connection);
  const requests: RecordedRequest[] = [];
  const transport: Transport = {
    get: (path, query, options) => inner.get(path, query, options),
    watch: (path, query, options) => inner.watch(path, query, options),
    request: (request: TransportRequest) =>
      new Observable((subscriber) => {
        const entry: RecordedRequest = {
          method: request.method,
          path: request.path,
          contentType: request.contentType,
          body: request.body,
          outcome: 'pending',
        };
        requests.push(entry);
        return inner.request(request).subscribe({
          next: (response) => {
            entry.outcome = String(response.status);
            subscriber.next(response);
          },
          error: (error: unknown) => {
            entry.outcome = error instanceof ApiError ? `error ${error.code}` : `error ${(error as Error)?.name}`;
            entry.error = error;
            subscriber.error(error);
          },
          complete: () => subscriber.complete(),
        });
      }),
  };
  return { transport, requests };
}
