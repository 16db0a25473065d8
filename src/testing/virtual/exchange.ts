/**
 * One in-process exchange with a server core: the core's {@link ResponseSink} delivering into an Observable, every
 * delivery an action of the cluster's scheduler (zero-delay, or after the watch lag for watch chunks, as bytes
 * arrive later than they are sent over a socket), so a write never re-enters the store from inside another commit.
 * @module
 */
import { Observable, Subscription, type SchedulerLike } from 'rxjs';
import { TransportError } from '../../transport/index.js';
import type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink, ServerCore } from '../apiserver/index.js';

/**
 * What the consumer of an exchange sees, in order: one `response` (a whole answer), or a streamed answer's `head`,
 * its `chunk`s and its `end`.
 */
export type ExchangeEvent =
  | {
      /** A whole answer. */
      readonly kind: 'response';
      /** The HTTP status code. */
      readonly status: number;
      /** The response headers, as the HTTP server would send them. */
      readonly headers: ResponseHeaders;
      /** The body: text for JSON and YAML, bytes for protobuf. */
      readonly body: string | Buffer;
    }
  | {
      /** The start of a streamed answer (a watch): chunks follow. */
      readonly kind: 'head';
      /** The HTTP status code. */
      readonly status: number;
      /** The response headers. */
      readonly headers: ResponseHeaders;
    }
  | {
      /** One chunk of a streamed answer, in order. */
      readonly kind: 'chunk';
      /** The chunk's text (watch lines, possibly cut anywhere). */
      readonly text: string;
    }
  | {
      /** The clean end of a streamed answer. */
      readonly kind: 'end';
    };

/** How an open exchange is cut from outside (the `restart` fault, `close()`). */
export type CutExchange = (reason: string) => void;

/**
 * A cold Observable of one exchange: subscribing serves `request` on `core` at the current virtual time.
 *
 * # Guarantees
 * - A whole response is one `response` event then completion; a stream is `head`, `chunk`s, `end`, completion; a
 *   cut stream errors with `TransportError('ConnectionClosed')`.
 * - Unsubscribing cancels pending deliveries and tells the core the consumer is gone (its watch stops).
 * - Every delivery, a cut included, is an action of `scheduler`, in the order the core produced them: a chunk
 *   `chunkLag()` ms after it was written, anything else at once (zero-delay) or, behind a lagging chunk, right
 *   after it. Without a lag the watch chunks a write commits are delivered before the write's own response, in the
 *   same virtual frame.
 * - What the core writes to a stream while a chunk due at the same time waits for delivery joins that chunk, as
 *   bytes waiting in a socket are read together: a burst of writes in one synchronous run (a `seed` of several
 *   objects, a commit that several watches see) arrives as one chunk, so an informer applies it as one store batch.
 * - `register` sees the exchange while it is open, so the cluster can cut it.
 */
export function exchange(
  core: ServerCore,
  scheduler: SchedulerLike,
  request: ApiRequest,
  register: (cut: CutExchange) => () => void,
  chunkLag: () => number = () => 0,
): Observable<ExchangeEvent> {
  return new Observable<ExchangeEvent>((subscriber) => {
    const pending = new Subscription();
    const goneListeners: (() => void)[] = [];
    let started = false;
    let finished = false;
    /** The chunk scheduled for delivery and not yet delivered, and when it is due. */
    let unread: { text: string; readonly due: number } | undefined;
    /** When the last delivery is due: nothing is delivered before it (a socket keeps its order). */
    let lastDue = scheduler.now();
    const dueAfter = (lag: number): number => Math.max(lastDue, scheduler.now() + lag);
    const deliver = (work: () => void, due = dueAfter(0)): void => {
      lastDue = due;
      let done = false;
      let action: Subscription | undefined;
      action = scheduler.schedule(
        () => {
          done = true;
          // A long watch delivers many chunks: forget each action once it ran.
          if (action !== undefined) pending.remove(action);
          if (!subscriber.closed) work();
        },
        Math.max(0, due - scheduler.now()),
      );
      if (!done) pending.add(action);
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
        const due = dueAfter(chunkLag());
        // Bytes written before the consumer reads are read together, as from a socket's buffer: a write joins the
        // chunk still waiting for delivery at the same time. Nothing else can be waiting behind that chunk (end,
        // abort and cuts finish the stream, after which nothing is written), so the order holds.
        if (unread !== undefined && unread.due === due) {
          unread.text += text;
          return true;
        }
        const chunk = { text, due };
        unread = chunk;
        deliver(() => {
          if (unread === chunk) unread = undefined;
          subscriber.next({ kind: 'chunk', text: chunk.text });
        }, due);
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
        deliver(() =>
          subscriber.error(
            new TransportError('ConnectionClosed', `${request.method} ${request.path}: stream cut by the server`),
          ),
        );
      },
    };
    // node:http adds a Date header to every answer; here it is the virtual clock's.
    const dated = (headers: ResponseHeaders): ResponseHeaders => ({
      Date: new Date(scheduler.now()).toUTCString(),
      ...headers,
    });
    const sink: ResponseSink = {
      get started() {
        return started || finished;
      },
      respond(status, headers, body, afterSent) {
        if (started || finished) return;
        started = true;
        finish();
        const head = dated(headers);
        deliver(() => {
          subscriber.next({ kind: 'response', status, headers: head, body });
          subscriber.complete();
          afterSent?.();
        });
      },
      stream(status, headers) {
        started = true;
        const head = dated(headers);
        deliver(() => subscriber.next({ kind: 'head', status, headers: head }));
        return chunks;
      },
    };
    const unregister = register((reason) => {
      if (finished) return;
      finish();
      // The server side lets go at once; the consumer hears of it after what was already on its way.
      for (const listener of goneListeners.splice(0)) listener();
      deliver(() =>
        subscriber.error(new TransportError('ConnectionClosed', `${request.method} ${request.path}: ${reason}`)),
      );
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
