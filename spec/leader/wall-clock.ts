/**
 * A wall clock a spec can step, and a Lease transport scripted request by request, for the specs of the default
 * scheduler: they run on Node's real timers (a few milliseconds each) while `Date.now()` jumps by hours, so what
 * they check is the order of events, never how long anything took.
 */
import { defer, of, throwError, type Observable } from 'rxjs';
import type { LeaseObject } from '../../src/leader/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/transport/index.js';

/**
 * Replaces `Date.now` with the real one plus an offset the caller moves, for the length of `body`; the real one is
 * back when the returned promise settles.
 */
export async function withSteppedWallClock<R>(body: (step: (byMs: number) => void) => Promise<R>): Promise<R> {
  const real = Date.now;
  let offset = 0;
  Date.now = () => real() + offset;
  try {
    return await body((byMs) => {
      offset += byMs;
    });
  } finally {
    Date.now = real;
  }
}

/** One request as the scripted transport saw it, with the request body for writes. */
export interface SeenRequest {
  readonly method: string;
  readonly body: LeaseObject | undefined;
}

/**
 * A transport that answers every request synchronously with `answer(request, index)`: a Lease, or an `Error` to
 * fail with (an `ApiError` 404 for a missing Lease). It records what it saw and calls `onRequest` after each answer.
 */
export function scriptedLeases(
  answer: (request: TransportRequest, index: number) => LeaseObject | Error,
  onRequest: (seen: readonly SeenRequest[]) => void,
): Transport {
  const seen: SeenRequest[] = [];
  const refuse = (): Observable<never> => throwError(() => new Error('unexpected call'));
  return {
    get: refuse,
    watch: refuse,
    request: (request) =>
      defer(() => {
        const index = seen.length;
        seen.push({ method: request.method, body: request.body as LeaseObject | undefined });
        const result = answer(request, index);
        onRequest(seen);
        if (result instanceof Error) return throwError(() => result);
        return of<TransportResponse>({ status: 200, body: result, headers: {} });
      }),
  };
}
