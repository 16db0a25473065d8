/**
 * A scripted Transport for the client specs: every request is logged with the virtual time it was sent at, and
 * answered by the script (usually after a delay, in virtual time).
 */
import { Observable, map, throwError, timer } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { ApiError } from '../../../src/transport/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/transport/index.js';

/** One request as the transport saw it. */
export interface SentRequest extends TransportRequest {
  readonly time: number;
}

/** A transport whose answers come from `script`; `requests` and `lines` record what was sent. */
export interface ScriptedTransport {
  readonly transport: Transport;
  readonly requests: SentRequest[];
  /** `<time> <METHOD> <path>`, one per request, plus `<time> unsubscribed <METHOD> <path>` for aborted ones. */
  readonly lines: string[];
}

export function scriptedTransport(
  scheduler: SchedulerLike,
  script: (request: TransportRequest, index: number) => Observable<TransportResponse>,
): ScriptedTransport {
  const requests: SentRequest[] = [];
  const lines: string[] = [];
  const transport: Transport = {
    get: () => throwError(() => new Error('the client specs script request(), not get()')),
    watch: () => throwError(() => new Error('the client specs script request(), not watch()')),
    request: (request) =>
      new Observable<TransportResponse>((subscriber) => {
        const index = requests.length;
        requests.push({ ...request, time: scheduler.now() });
        lines.push(`${scheduler.now()} ${request.method} ${request.path}`);
        let done = false;
        const inner = script(request, index).subscribe({
          next: (value) => {
            done = true;
            subscriber.next(value);
          },
          error: (err: unknown) => {
            done = true;
            subscriber.error(err);
          },
          complete: () => {
            done = true;
            subscriber.complete();
          },
        });
        return () => {
          if (!done) lines.push(`${scheduler.now()} unsubscribed ${request.method} ${request.path}`);
          inner.unsubscribe();
        };
      }),
  };
  return { transport, requests, lines };
}

/** A 200 answer with `body` after `delayMs`. */
export function ok(body: unknown, delayMs = 1, scheduler?: SchedulerLike): Observable<TransportResponse> {
  return timer(delayMs, scheduler).pipe(map(() => ({ status: 200, body, headers: {} })));
}

/** An error answer after `delayMs`. */
export function fail(error: unknown, delayMs = 1, scheduler?: SchedulerLike): Observable<TransportResponse> {
  return timer(delayMs, scheduler).pipe(
    map(() => {
      throw error;
    }),
  );
}

/** The Status of a kube-apiserver error, as the transport decodes it. */
export function apiError(code: number, reason: string, message: string, details: object = {}): ApiError {
  return new ApiError(code, reason, message, undefined, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
    details,
  });
}

/** 409: a resourceVersion precondition failed. */
export const conflict = (): ApiError =>
  apiError(
    409,
    'Conflict',
    'Operation cannot be fulfilled on configmaps "web": the object has been modified; please apply your changes to the latest version and try again',
  );
/** 422 without causes: what kube-apiserver answers a JSON Patch whose `test` fails. */
export const unapplied = (): ApiError =>
  apiError(422, 'Invalid', 'the server rejected our request due to an error in our request');
