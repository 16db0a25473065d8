/**
 * One HTTP(S) exchange with the API server over client-node's KubeConfig: URL, auth, TLS, abort and error decoding,
 * shared by reads, watches and writes. Internal to the transport.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { noteKeepAlive, pooledAgent, replayOnNewConnection } from './agents.js';
import { apiErrorFromResponse, TransportError, type ApiError } from './errors.js';
import type { QueryParams } from './http.js';
import { warningHeaderValues } from './warnings.js';
import { defaultUserAgent } from './user-agent.js';

/** How much of an error response body is read for its `Status`. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** What one exchange sends besides method, path and query. */
export interface ExchangeOptions {
  readonly accept?: string | undefined;
  readonly contentType?: string | undefined;
  /** The request body, already serialized. */
  readonly body?: string | Uint8Array | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The `User-Agent` header; {@link defaultUserAgent} when omitted. */
  readonly userAgent?: string | undefined;
}

let processUserAgent: string | undefined;

export function ignore(): void {}

/**
 * Builds the URL, applies KubeConfig auth/TLS, sends the request and resolves with a 2xx response; rejects with
 * `ApiError` (decoded from the Status body) for any other status and with `TransportError` when the network fails.
 *
 * # Guarantees
 * - Aborting `signal` destroys the request (or, after the headers, the response) and rejects with its reason.
 * - Every request carries a `User-Agent`: `options.userAgent`, else {@link defaultUserAgent} (program, rxkube's
 *   version, OS and architecture), from which kube-apiserver names the field manager of a write that gives none.
 * - Connections are pooled per host and TLS options and kept open between exchanges (idle ones close after 30 s,
 *   `IDLE_CONNECTION_MS`); a cluster with a `proxy-url` goes through client-node's proxy agent instead.
 * - A GET or HEAD that fails because the server closed the pooled connection it went out on is sent once more, on a
 *   new connection. Any other method fails with `NetworkError`: it is not replayed, because the server may have
 *   applied it.
 */
export async function openRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  query: QueryParams,
  options: ExchangeOptions,
): Promise<IncomingMessage> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new TransportError('NoCluster', 'KubeConfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const requestOptions: https.RequestOptions = { method, headers: {} };
  await kc.applyToHTTPSOptions(requestOptions);
  // client-node's agent opens a connection per request; its proxy agents are kept, since only they reach the proxy.
  if (!cluster.proxyUrl) requestOptions.agent = pooledAgent(url);
  const headers: Record<string, string | number> = {
    Accept: options.accept ?? 'application/json',
    'User-Agent': options.userAgent ?? (processUserAgent ??= defaultUserAgent()),
  };
  if (options.body !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    headers['Content-Length'] =
      typeof options.body === 'string' ? Buffer.byteLength(options.body) : options.body.byteLength;
  }
  requestOptions.headers = { ...requestOptions.headers, ...headers };
  const signal = options.signal;
  signal?.throwIfAborted();

  return new Promise<IncomingMessage>((resolve, reject) => {
    const send = url.protocol === 'http:' ? http.request : https.request;
    let req = send(url, requestOptions);
    const onAbort = (): void => {
      req.destroy();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const onError = (err: Error): void => {
      if (signal?.aborted !== true && replayOnNewConnection(method, req.reusedSocket, err)) {
        // `agent: false` gives the second try a connection of its own, not another pooled one that may be as stale.
        req = send(url, { ...requestOptions, agent: false });
        listen();
        return;
      }
      signal?.removeEventListener('abort', onAbort);
      reject(new TransportError('NetworkError', `${method} ${url.pathname}: ${err.message}`, { cause: err }));
    };
    const onResponse = (res: IncomingMessage): void => {
      signal?.removeEventListener('abort', onAbort);
      noteKeepAlive(res);
      // Tie the body's lifetime to the signal, so aborting mid-body also frees the socket.
      if (signal !== undefined) {
        const onBodyAbort = (): void => {
          res.on('error', ignore);
          res.destroy();
        };
        signal.addEventListener('abort', onBodyAbort, { once: true });
        res.once('close', () => signal.removeEventListener('abort', onBodyAbort));
      }
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) {
        resolve(res);
        return;
      }
      const failed = (body: string): ApiError =>
        apiErrorFromResponse({
          statusCode: code,
          statusMessage: res.statusMessage,
          body,
          retryAfter: headerValue(res.headers['retry-after']),
          date: headerValue(res.headers.date),
          warningHeaders: warningHeaderValues(res.headersDistinct),
        });
      readBody(res, ERROR_BODY_LIMIT).then(
        (body) => reject(failed(body)),
        () => reject(failed('')),
      );
    };
    const listen = (): void => {
      req.on('error', onError);
      req.on('response', onResponse);
      req.end(options.body);
    };
    listen();
  });
}

/** The first value of a header. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a body as UTF-8 (decoded once, so split multi-byte characters are safe), up to `limit` bytes. */
export function readBody(res: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (size < limit) chunks.push(chunk);
      size += chunk.length;
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) =>
      reject(new TransportError('ConnectionClosed', `response body cut: ${err.message}`, { cause: err })),
    );
    res.on('close', () => {
      if (!res.complete) reject(new TransportError('ConnectionClosed', 'response closed before its end'));
    });
  });
}
