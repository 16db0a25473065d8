/**
 * The thin node:http adapter over the server core: reads the body (bounded), turns the exchange into an
 * {@link ApiRequest} and writes the core's answer to the `ServerResponse`.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink } from './exchange.js';
import { readBodyBytes } from './http.js';
import type { ServerCore } from './core.js';

function firstValues(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
  return headers;
}

/**
 * A watch body over a `ServerResponse`.
 *
 * # Guarantees
 * - Lines written in one event-loop turn (every request handled in it, a flush of held lines) leave in one socket
 *   write per watcher, instead of one write per event per watcher.
 */
class HttpChunks implements ChunkSink {
  private corked = false;

  constructor(private readonly res: ServerResponse) {}

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  get pendingBytes(): number {
    return this.res.writableLength;
  }

  write(text: string): boolean {
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      setImmediate(() => this.uncork());
    }
    return this.res.write(text);
  }

  private uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.res.uncork();
  }

  onDrain(listener: () => void): void {
    this.res.once('drain', listener);
  }

  onGone(listener: () => void): void {
    this.res.on('close', listener);
    // Writes racing a socket teardown report errors here; the 'close' that follows ends the stream.
    this.res.on('error', listener);
  }

  end(): void {
    this.uncork();
    this.res.end();
  }

  abort(): void {
    this.uncork();
    this.res.socket?.destroy();
  }
}

function httpSink(res: ServerResponse): ResponseSink {
  return {
    get started() {
      return res.headersSent || res.destroyed;
    },
    respond(status: number, headers: ResponseHeaders, body: string | Buffer, afterSent?: () => void): void {
      if (res.headersSent || res.destroyed) {
        if (!res.writableEnded) res.end();
        return;
      }
      res.writeHead(status, headers);
      if (afterSent !== undefined) res.on('finish', afterSent);
      // A string body makes Node send the head with it as UTF-8, which would encode a header's bytes (a warning's
      // UTF-8 text, see `warningHeaders`) a second time; with bytes, the head goes out one byte per character.
      res.end(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    },
    stream(status: number, headers: ResponseHeaders): ChunkSink {
      res.writeHead(status, headers);
      res.flushHeaders();
      return new HttpChunks(res);
    },
  };
}

/**
 * Builds the `(req, res)` handler for node:http / node:https over `core`.
 *
 * # Guarantees
 * - A body over `maxBodyBytes` is never buffered: the core answers 413 (and the connection closes).
 * - A client that goes away before a delayed (latency fault) answer cancels it.
 */
export function createHandler(core: ServerCore, maxBodyBytes: number): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      let body: Buffer | undefined;
      try {
        body = await readBodyBytes(req, maxBodyBytes);
      } catch {
        res.destroy();
        return;
      }
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const request: ApiRequest = {
        method: (req.method ?? 'GET').toUpperCase(),
        path: q < 0 ? target : target.slice(0, q),
        search: q < 0 ? '' : target.slice(q),
        headers: firstValues(req),
        body: body ?? Buffer.alloc(0),
        ...(body === undefined ? { bodyTooLarge: true } : {}),
      };
      const cancel = core.serve(request, httpSink(res));
      res.once('close', cancel);
    })();
  };
}
