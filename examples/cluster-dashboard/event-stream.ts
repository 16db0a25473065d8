/**
 * The page's Server-Sent Events stream, with backpressure: frames are full pictures, so a browser that reads
 * slower than they come gets the latest one when it can take one, and never a queue of old ones.
 * @module
 */
import type { ServerResponse } from 'node:http';
import {
  filter,
  fromEvent,
  interval,
  merge,
  take,
  tap,
  throttle,
  type MonoTypeOperatorFunction,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { HEARTBEAT_MS } from './options.js';

/** What a connection needs of its socket: whether its buffer is over the high-water mark. */
export interface DrainingWritable {
  /** Node's `writable.writableNeedDrain`: true after a `write()` returned false, until `'drain'`. */
  readonly writableNeedDrain: boolean;
}

/**
 * Passes each value on at once while `writable` can take more; while it needs draining, holds only the latest value
 * and passes it on when `drain$` says the buffer emptied. Intermediate values are dropped, not queued.
 *
 * It is RxJS's `throttle` with a duration that lasts as long as the socket needs draining: `leading` sends a value
 * when nothing is pending, `trailing` sends the latest one held when the drain comes.
 *
 * # Guarantees
 * - Holds at most one value per subscription: a slow reader costs one reference to a frame (which every connection
 *   shares), never a buffer that grows with what it did not read.
 * - The value passed on after a drain is the latest one that arrived while waiting: the reader skips states, it
 *   never sees an older state after a newer one.
 * - `writableNeedDrain` is read right after each value is passed on (so after the subscriber wrote it).
 *
 * # Caveats
 * - If `drain$` never emits (a reader that stopped reading), the latest value is held until the subscription ends;
 *   close such connections on their `close` event.
 */
export function latestWhenWritable<T>(
  writable: DrainingWritable,
  drain$: Observable<unknown>,
): MonoTypeOperatorFunction<T> {
  return throttle<T>(() => (writable.writableNeedDrain ? drain$.pipe(take(1)) : []), { leading: true, trailing: true });
}

/** One picture, serialized once for every connection. */
export interface Frame {
  /** The picture as JSON (what `GET /state` answers). */
  readonly json: string;
  /** The picture as one `state` event of the stream. */
  readonly event: string;
}

/** Serializes `state` for the stream and for `GET /state`. */
export function toFrame(state: unknown): Frame {
  // JSON.stringify escapes line breaks inside strings, so the data is one line, as a `data:` field must be.
  const json = JSON.stringify(state);
  return { json, event: `event: state\ndata: ${json}\n\n` };
}

/** What one connection has sent, for the bench and the page's footer. */
export interface ConnectionStats {
  /** Frames the shared stream produced while it was connected. */
  offered: number;
  /** Frames written to it. */
  written: number;
  /** The most bytes its response held unsent right after a write (`writableLength`). */
  peakBufferedBytes: number;
  /** Its response's `writableHighWaterMark`: a write happens only while less than this is unsent. */
  highWaterMark: number;
}

/**
 * Serves `frames$` (replaying the latest on subscribe) on `response` as an event
 * stream until the request closes; returns a function that ends it.
 *
 * # Guarantees
 * - The first frame is the latest picture (the replay), so a browser that reconnects gets the whole state at once:
 *   resuming needs no `Last-Event-ID`.
 * - Backpressure by {@link latestWhenWritable}: a write happens only when the response's buffer is under its
 *   high-water mark, so what it holds unsent is at most its `writableHighWaterMark` plus one frame.
 * - A comment line every {@link HEARTBEAT_MS} while the buffer has room keeps proxies from closing an idle stream.
 * - `retry: 1000` asks the browser to reconnect one second after the connection drops.
 */
export function serveEventStream(
  response: ServerResponse,
  frames$: Observable<Frame>,
  stats: ConnectionStats,
  scheduler: SchedulerLike,
): () => void {
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  response.socket?.setNoDelay(true);
  stats.highWaterMark = response.writableHighWaterMark;
  response.write('retry: 1000\n\n');
  const drain$ = merge(fromEvent(response, 'drain'), fromEvent(response, 'close'));
  const write = (chunk: string): void => {
    response.write(chunk);
    stats.peakBufferedBytes = Math.max(stats.peakBufferedBytes, response.writableLength);
  };
  const subscription = merge(
    frames$.pipe(
      tap(() => {
        stats.offered += 1;
      }),
      latestWhenWritable(response, drain$),
    ),
    interval(HEARTBEAT_MS, scheduler).pipe(filter(() => !response.writableNeedDrain)),
  ).subscribe((frame) => {
    if (typeof frame === 'object') {
      stats.written += 1;
      write(frame.event);
    } else {
      write(': heartbeat\n\n');
    }
  });
  return () => {
    subscription.unsubscribe();
    if (!response.writableEnded) response.end();
  };
}
