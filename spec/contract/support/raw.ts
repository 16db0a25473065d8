/**
 * Raw HTTP against either contract target, through the target's KubeConfig (CA, client certificate or token).
 *
 * client-node's typed clients hide the exact Status body and cannot send metadata-only Accept headers, and the
 * contract is about exactly those bytes, so scenarios that assert on them go through here.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

/** One HTTP answer: status, headers and the body as text and (when it parses) JSON. */
export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The parsed body; `undefined` when the body is not JSON (the test then sees `text`). */
  readonly json: any;
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  /** Sent as is when a string or bytes (a protobuf body), as JSON otherwise. */
  readonly body?: unknown;
  readonly accept?: string;
  readonly contentType?: string;
  /** The User-Agent header (none is sent by default). */
  readonly userAgent?: string;
  /** Safety bound so a hung server fails the test instead of hanging it; not a timing assertion. */
  readonly timeoutMs?: number;
}

/** `http.request` options for `path` on the KubeConfig's current cluster, credentials applied. */
async function requestOptions(
  kc: KubeConfig,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ client: typeof http | typeof https; options: https.RequestOptions }> {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the KubeConfig has no current cluster');
  const url = new URL(path, server);
  const options: https.RequestOptions = {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers },
  };
  await kc.applyToHTTPSOptions(options);
  return { client: url.protocol === 'https:' ? https : http, options };
}

/** A request body as sent: strings and bytes as they are, anything else as JSON. */
export function requestPayload(body: unknown): string | Uint8Array | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
}

/** The parsed JSON of `text`, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends one request and reads the whole answer. Never throws for HTTP error statuses: they are the data. */
export async function rawRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  if (options.userAgent !== undefined) headers['User-Agent'] = options.userAgent;
  const payload = requestPayload(options.body);
  if (payload !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    // Node does not chunk DELETE bodies by default, so without a length the body would go unframed and
    // kube-apiserver would ignore it (DeleteOptions silently lost).
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const { client, options: request } = await requestOptions(kc, method, path, headers);
  return new Promise<RawResponse>((resolve, reject) => {
    const req = client.request({ ...request, timeout: options.timeoutMs ?? 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} got no answer in time`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** One decoded watch line. */
export interface WatchEventLine {
  readonly type: string;
  readonly object: any;
}

/**
 * An open watch stream.
 *
 * # Guarantees
 * - `events` holds every line received so far, in order; a line that is not JSON fails `next`/`closed` loudly.
 * - `close()` destroys the request at once and is idempotent; `closed` settles exactly once.
 */
export interface OpenWatch {
  /** The HTTP status and headers, once they arrived. */
  readonly response: Promise<{ status: number; headers: IncomingHttpHeaders }>;
  readonly events: readonly WatchEventLine[];
  /** Resolves when the server ends the stream cleanly (e.g. `timeoutSeconds`); rejects on a broken stream. */
  readonly closed: Promise<void>;
  /** Resolves with the first event (already received or future) matching `predicate`; rejects if the stream ends first. */
  next(predicate: (event: WatchEventLine) => boolean, timeoutMs?: number): Promise<WatchEventLine>;
  close(): void;
}

/** What a watch stream's source reports, in order: the head once, chunks, then the end or an error. */
export interface WatchStreamHandlers {
  head(status: number, headers: IncomingHttpHeaders): void;
  chunk(text: string): void;
  end(): void;
  /** The stream broke (or, before the head, the request failed). */
  error(error: Error): void;
}

/** Opens `GET path` (which must carry `watch=1`) and decodes newline-delimited JSON events as they arrive. */
export async function openWatch(kc: KubeConfig, path: string, accept = 'application/json'): Promise<OpenWatch> {
  const { client, options } = await requestOptions(kc, 'GET', path, { Accept: accept });
  return watchOver((handlers) => {
    const req = client.request(options, (res) => {
      handlers.head(res.statusCode ?? 0, res.headers);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => handlers.chunk(chunk));
      res.on('end', () => handlers.end());
      res.on('error', (error) => handlers.error(error));
    });
    req.on('error', (error) => handlers.error(error));
    req.end();
    return () => req.destroy();
  });
}

/**
 * An {@link OpenWatch} over any source of watch chunks: `start` begins the request, reports through the handlers,
 * and returns the function that cuts it.
 */
export function watchOver(start: (handlers: WatchStreamHandlers) => () => void): OpenWatch {
  const events: WatchEventLine[] = [];
  const waiters = new Set<() => void>();
  let ended: Error | 'clean' | undefined;
  const settle = (how: Error | 'clean'): void => {
    ended ??= how;
    for (const wake of waiters) wake();
  };
  let resolveResponse!: (r: { status: number; headers: IncomingHttpHeaders }) => void;
  let rejectResponse!: (e: Error) => void;
  const response = new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
    resolveResponse = resolve;
    rejectResponse = reject;
  });
  let resolveClosed!: () => void;
  let rejectClosed!: (e: Error) => void;
  const closed = new Promise<void>((resolve, reject) => {
    resolveClosed = resolve;
    rejectClosed = reject;
  });
  // Callers that only look at events must not trip unhandled-rejection on an aborted stream.
  closed.catch(() => undefined);
  response.catch(() => undefined);

  let status = 0;
  let buffer = '';
  let cut: () => void = () => undefined;
  cut = start({
    head: (code, headers) => {
      status = code;
      resolveResponse({ status: code, headers });
    },
    chunk: (chunk) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line === '') continue;
        const parsed = parseJson(line) as WatchEventLine | undefined;
        if (parsed === undefined || typeof parsed.type !== 'string') {
          settle(new Error(`watch sent a line that is not a watch event: ${line.slice(0, 200)}`));
          cut();
          return;
        }
        events.push(parsed);
        for (const wake of waiters) wake();
      }
    },
    end: () => {
      if (buffer.trim() !== '' && status === 200)
        settle(new Error(`watch ended inside a line: ${buffer.slice(0, 200)}`));
      else settle('clean');
      if (ended === 'clean') resolveClosed();
      else rejectClosed(ended as Error);
    },
    error: (error) => {
      settle(error);
      rejectResponse(error);
      rejectClosed(error);
    },
  });

  return {
    response,
    events,
    closed,
    close: () => {
      settle(new Error('watch closed by the test'));
      cut();
    },
    next(predicate, timeoutMs = 20_000) {
      return new Promise<WatchEventLine>((resolve, reject) => {
        let seen = 0;
        const check = (): void => {
          for (; seen < events.length; seen++) {
            if (predicate(events[seen]!)) return done(() => resolve(events[seen]!));
          }
          if (ended !== undefined) {
            const reason = ended === 'clean' ? 'the watch ended' : ended.message;
            done(() =>
              reject(new Error(`${reason} before the expected event; got ${JSON.stringify(events.map(summary))}`)),
            );
          }
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`no matching watch event; got ${JSON.stringify(events.map(summary))}`))),
          timeoutMs,
        );
        const done = (finish: () => void): void => {
          clearTimeout(timer);
          waiters.delete(check);
          finish();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** `TYPE name@rv` for readable failure messages. */
export function summary(event: WatchEventLine): string {
  const meta = event.object?.metadata ?? {};
  return `${event.type} ${meta.name ?? event.object?.reason ?? ''}@${meta.resourceVersion ?? ''}`;
}
