/**
 * One in-process exchange with a server core: the core's {@link ResponseSink} delivering into an Observable, every
 * delivery a zero-delay action of the cluster's scheduler (as bytes arrive later than they are sent over a
 * socket), so a write never re-enters the store from inside another commit.
 * @module
 */
import { Observable, Subscription, type SchedulerLike } from 'rxjs';
import { TransportError } from '../../transport/index.js';
import type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink, ServerCore } from '../apiserver/index.js';

/** What the consumer of an exchange sees, in order. */
export type ExchangeEvent =
  | { readonly kind: 'response'; readonly status: number; readonly headers: ResponseHeaders; readonly body: string | Buffer }
  | { readonly kind: 'head'; readonly status: number; readonly headers: ResponseHeaders }
  | { readonly kind: 'chunk'; readonly text: string }
  | { readonly kind: 'end' };

/** How an open exchange is cut from outside (the `restart` fault, `close()`). */
export type CutExchange = (reason: string) => void;

/**
 * A cold Observable of one exchange: subscribing serves `request` on `core` at the current virtual time.
 *
 * # Guarantees
 * - A whole response is one `response` event then completion; a stream is `head`, `chunk`s, `end`, completion; a
 *   cut stream errors with `TransportError('ConnectionClosed')`.
 * - Unsubscribing cancels pending deliveries and tells the core the consumer is gone (its watch stops).
 * - `register` sees the exchange while it is open, so the cluster can cut it.
 */
export function exchange(
  core: ServerCore, scheduler: SchedulerLike, request: ApiRequest, register: (cut: CutExchange) => () => void,
): Observable<ExchangeEvent> {
  return new Observable<ExchangeEvent>((subscriber) => {
    const pending = new Subscription();
    const goneListeners: (() => void)[] = [];
    let started = false;
    let finished = false;
    const deliver = (work: () => void): void => {
      pending.add(scheduler.schedule(() => {
        if (!subscriber.closed) work();
      }, 0));
    };
    const finish = (): void => {
      finished = true;
      unregister();
    };
    const chunks: ChunkSink = {
      get open() {
        return !finished && !subscriber.closed;
      },
      pendingBytes: 0,
      write(text) {
        if (finished) return false;
        deliver(() => subscriber.next({ kind: 'chunk', text }));
        return true;
      },
      onDrain() {
        // Deliveries never back up: a write is taken as soon as it is scheduled.
      },
      onGone(listener) {
        goneListeners.push(listener);
      },
      end() {
        if (finished) return;
        finish();
        deliver(() => {
          subscriber.next({ kind: 'end' });
          subscriber.complete();
        });
      },
      abort() {
        if (finished) return;
        finish();
        deliver(() => subscriber.error(new TransportError('ConnectionClosed', `${request.method} ${request.path}: stream cut by the server`)));
      },
    };
    const sink: ResponseSink = {
      get started() {
        return started || finished;
      },
      respond(status, headers, body, afterSent) {
        if (started || finished) return;
        started = true;
        finish();
        deliver(() => {
          subscriber.next({ kind: 'response', status, headers, body });
          subscriber.complete();
          afterSent?.();
        });
      },
      stream(status, headers) {
        started = true;
        deliver(() => subscriber.next({ kind: 'head', status, headers }));
        return chunks;
      },
    };
    const unregister = register((reason) => {
      if (finished) return;
      finish();
      for (const listener of goneListeners.splice(0)) listener();
      subscriber.error(new TransportError('ConnectionClosed', `${request.method} ${request.path}: ${reason}`));
    });
    const cancel = core.serve(request, sink);
    return () => {
      pending.unsubscribe();
      cancel();
      unregister();
      if (!finished) {
        finished = true;
        for (const listener of goneListeners.splice(0)) listener();
      }
    };
  });
}
