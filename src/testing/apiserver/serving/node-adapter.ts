/**
 * The thin node:http adapter over the server core: reads the body (bounded), turns the exchange into an
 * {@link ApiRequest} and writes the core's answer to the `ServerResponse`.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink } from '../machinery/index.js';
import { readBodyBytes } from './http.js';

function firstValues(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
  return headers;
}

/**
 * The watch bodies of one server holding corked lines: a response flushes them all before it is written, so a
 * write's watch events leave before the write's own answer, as kube-apiserver's mostly do.
 */
class CorkedWatches {
  private readonly corked = new Set<HttpChunks>();

  add(chunks: HttpChunks): void {
    this.corked.add(chunks);
  }

  delete(chunks: HttpChunks): void {
    this.corked.delete(chunks);
  }

  /** Sends every corked watch line now. */
  flush(): void {
    if (this.corked.size === 0) return;
    for (const chunks of [...this.corked]) chunks.uncork();
  }
}

/**
 * A watch body over a `ServerResponse`.
 *
 * # Guarantees
 * - Lines written in one event-loop turn leave in one socket write per watcher, instead of one write per event per
 *   watcher, unless an answer is written in between: {@link CorkedWatches.flush} sends them first.
 */
class HttpChunks implements ChunkSink {
  private corked = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly watches: CorkedWatches,
  ) {}

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  get pendingBytes(): number {
    return this.res.writableLength;
  }

  write(text: string): boolean {
    if (!this.corked) {
      this.corked = true;
      this.watches.add(this);
      this.res.cork();
      setImmediate(() => this.uncork());
    }
    return this.res.write(text);
  }

  /** Sends the lines corked so far. */
  uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.watches.delete(this);
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

function httpSink(res: ServerResponse, watches: CorkedWatches): ResponseSink {
  return {
    get started() {
      return res.headersSent || res.destroyed;
    },
    respond(status: number, headers: ResponseHeaders, body: string | Buffer, afterSent?: () => void): void {
      if (res.headersSent || res.destroyed) {
        if (!res.writableEnded) res.end();
        return;
      }
      // The watch lines of the write this answers (committed before it) leave first.
      watches.flush();
      res.writeHead(status, headers);
      if (afterSent !== undefined) res.on('finish', afterSent);
      // A string body makes Node send the head with it as UTF-8, which would encode a header's bytes (a warning's
      // UTF-8 text, see `warningHeaders`) a second time; with bytes, the head goes out one byte per character.
      res.end(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    },
    stream(status: number, headers: ResponseHeaders): ChunkSink {
      res.writeHead(status, headers);
      res.flushHeaders();
      return new HttpChunks(res, watches);
    },
  };
}

/**
 * Builds the `(req, res)` handler for node:http / node:https over `core` (a `ServerCore`: only `serve` is used).
 *
 * # Guarantees
 * - A body over `maxBodyBytes` is never buffered: the core answers 413 (and the connection closes).
 * - A client that goes away before a delayed (latency fault) answer cancels it.
 * - Watch lines written before an answer (the events of the write it answers) are sent before it: a client sees a
 *   write's events no later than its response, on separate connections as far as the sockets allow.
 */
export function createHandler(
  core: { serve(request: ApiRequest, sink: ResponseSink): () => void },
  maxBodyBytes: number,
): (req: IncomingMessage, res: ServerResponse) => void {
  const watches = new CorkedWatches();
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
      const cancel = core.serve(request, httpSink(res, watches));
      res.once('close', cancel);
    })();
  };
}
