/**
 * GET requests and watch streams over node:http(s), with auth, TLS and proxies applied by client-node's KubeConfig.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { ignore, openRequest, readBody } from './connection.js';
import { TransportError } from './errors.js';
import { eachOf } from './batches.js';
import { LineSplitter } from './lines.js';
import { reportWarnings, warningHeaderValues } from './warnings.js';
import { parseJson } from './json.js';

/** Query parameters; `undefined` values are left out. */
export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

/** Options of a single GET. */
export interface RequestOptions {
  /** Aborting it cancels the request (or the body read) at once. */
  readonly signal?: AbortSignal;
  /** The `Accept` header; defaults to `application/json`. */
  readonly accept?: string;
  /**
   * Called once with the API warnings of a 2xx answer that carries any (the texts of its `Warning: 299` headers, see
   * `parseWarningHeaders`), as soon as its headers arrive: before a GET's body is emitted, before a watch's
   * `onOpen`. A refused request's warnings are on its `ApiError` instead.
   */
  readonly onWarnings?: (texts: readonly string[]) => void;
  /** The `User-Agent` header; by default `defaultUserAgent()` (program, rxkube's version, OS and architecture). */
  readonly userAgent?: string;
}

/** Options of a watch stream. */
export interface WatchRequestOptions extends RequestOptions {
  /**
   * Called for every chunk of bytes received, before any line it completes is emitted. The reflector uses it for
   * its dead-connection timer, which counts bytes, not lines.
   */
  readonly onActivity?: () => void;
  /**
   * Called once, when the server has accepted the watch: its response headers arrived with a 2xx status. The
   * reflector announces `watching` then, not before.
   */
  readonly onOpen?: () => void;
  /** Longest accepted line in UTF-16 units (default 64 Mi); longer lines fail the stream with `LineTooLong`. */
  readonly maxLineChars?: number;
}

/** A Kubernetes list page, as far as the transport checks it. */
export interface KubeList<T = unknown> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items: T[];
}

/**
 * Sends a GET for `path` (relative to the current cluster's server) and resolves with the parsed JSON body.
 *
 * # Guarantees
 * - Auth (tokens, exec plugins, client certificates), TLS and proxies come from `kc.applyToHTTPSOptions`.
 * - A status >= 300 rejects with `ApiError`; a network failure or non-JSON body with {@link TransportError}.
 * - Aborting `signal` destroys the socket and rejects with the signal's reason.
 */
export async function getJson(
  kc: KubeConfig,
  path: string,
  query: QueryParams,
  options: RequestOptions = {},
): Promise<unknown> {
  const res = await openRequest(kc, 'GET', path, query, options);
  reportWarnings(warningHeaderValues(res.headersDistinct), options.onWarnings);
  return parseJsonBody(path, await readBody(res, Number.POSITIVE_INFINITY));
}

/** The decoded JSON body of a GET of `path`; `TransportError('MalformedResponse')` when it is not JSON. */
export function parseJsonBody(path: string, body: string): unknown {
  try {
    return parseJson(body) as unknown;
  } catch (err) {
    throw new TransportError('MalformedResponse', `GET ${path}: response body is not JSON (${body.length} chars)`, {
      cause: err,
    });
  }
}

/**
 * Fetches one list page and checks its shape (`items` array, `metadata` object).
 *
 * # Guarantees
 * As {@link getJson}; additionally a body that is JSON but not a list rejects with `MalformedResponse`.
 */
export async function listPage<T = unknown>(
  kc: KubeConfig,
  path: string,
  query: QueryParams,
  options: RequestOptions = {},
): Promise<KubeList<T>> {
  return asKubeList<T>(await getJson(kc, path, query, options), path);
}

/** Checks that a decoded body is a list; throws `TransportError('MalformedResponse')` otherwise. */
export function asKubeList<T>(body: unknown, path: string): KubeList<T> {
  const list = body as Partial<KubeList<T>> | null;
  if (typeof list !== 'object' || list === null || !Array.isArray(list.items)) {
    throw new TransportError('MalformedResponse', `GET ${path}: response is not a list (no items array)`);
  }
  const metadata = typeof list.metadata === 'object' && list.metadata !== null ? list.metadata : {};
  return { ...list, metadata, items: list.items } as KubeList<T>;
}

/**
 * Opens a watch (`watch=true` is added) and emits its raw lines.
 *
 * # Guarantees
 * - Cold: each subscription is one HTTP request; unsubscribing destroys the request and its socket at once and
 *   removes every listener.
 * - Lines are split on raw bytes (see {@link LineSplitter}); blank lines are emitted too (the reflector skips them).
 * - Completes when the server ends the response cleanly; errors with `ApiError` on an error status and with
 *   `TransportError('ConnectionClosed')` when the stream is cut before its end.
 */
export function watchLines(
  kc: KubeConfig,
  path: string,
  query: QueryParams,
  options: WatchRequestOptions = {},
): Observable<string> {
  return eachOf(watchLineChunks(kc, path, query, options));
}

/**
 * {@link watchLines}, one emission per network chunk: the lines that chunk completed, in order (never an empty
 * array). The reflector reads a watch this way, so that the deltas that arrived together reach the store as one
 * batch.
 *
 * # Guarantees
 * - Exactly the lines of {@link watchLines}, in the same order, with the same completion, errors and teardown;
 *   only their grouping differs.
 * - A chunk that completes no line (part of a long line) emits nothing, but still calls `onActivity`.
 */
export function watchLineChunks(
  kc: KubeConfig,
  path: string,
  query: QueryParams,
  options: WatchRequestOptions = {},
): Observable<readonly string[]> {
  return new Observable<readonly string[]>((subscriber) => {
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    if (options.signal?.aborted) controller.abort(options.signal.reason);
    let response: IncomingMessage | undefined;
    const splitter = new LineSplitter(options.maxLineChars);

    const onData = (chunk: Buffer): void => {
      options.onActivity?.();
      let lines: string[];
      try {
        lines = splitter.push(chunk);
      } catch (err) {
        subscriber.error(new TransportError('LineTooLong', `watch ${path}: ${(err as Error).message}`));
        return;
      }
      if (lines.length > 0) subscriber.next(lines);
    };
    const onEnd = (): void => {
      const last = splitter.flush();
      if (last !== undefined) subscriber.next([last]);
      subscriber.complete();
    };
    const onError = (err: Error): void => {
      subscriber.error(
        new TransportError('ConnectionClosed', `watch ${path}: stream cut: ${err.message}`, { cause: err }),
      );
    };
    const onClose = (): void => {
      if (response?.complete === false)
        subscriber.error(new TransportError('ConnectionClosed', `watch ${path}: stream closed before its end`));
    };

    openRequest(
      kc,
      'GET',
      path,
      { ...query, watch: 'true' },
      { accept: options.accept, signal: controller.signal, userAgent: options.userAgent },
    ).then(
      (res) => {
        if (subscriber.closed) {
          res.on('error', ignore);
          res.destroy();
          return;
        }
        response = res;
        res.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
        reportWarnings(warningHeaderValues(res.headersDistinct), options.onWarnings);
        options.onOpen?.();
      },
      (err: unknown) => subscriber.error(err),
    );

    return () => {
      options.signal?.removeEventListener('abort', onOuterAbort);
      controller.abort();
      if (response !== undefined) {
        response.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
        // Destroying can still emit 'error' (ECONNRESET); an unhandled 'error' event would crash the process.
        response.on('error', ignore);
        response.destroy();
      }
    };
  });
}
