/**
 * The seam between the reflector and HTTP: two cold Observables, so specs can script a fake in virtual time.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { getJson, watchLineChunks, watchLines } from './http.js';
import type { QueryParams, RequestOptions, WatchRequestOptions } from './http.js';
import { sendRequest, type TransportRequest, type TransportResponse } from './request.js';
import { checkUserAgent } from './user-agent.js';
import type { Connection } from 'rxkube';

/**
 * Everything rxkube needs from the network: reads and watches for the reflector and discovery, and the general
 * request every write goes through.
 *
 * # Guarantees (every implementation must keep them)
 * - Every method is cold: nothing is sent until subscription, and each subscription is one request.
 * - Unsubscribing aborts the request at once.
 * - `get` emits exactly one decoded JSON value then completes, or errors with `ApiError` / `TransportError`.
 * - `request` emits exactly one {@link TransportResponse} (2xx) then completes, or errors with `ApiError` (any other
 *   status, decoded from its `Status` body) / `TransportError`. It never retries.
 * - `watch` emits raw lines in arrival order; completes on a clean server close; errors on an error status or a
 *   cut stream. `onActivity` is called whenever bytes arrive; `onOpen` once, when the server accepted the watch
 *   (an implementation that cannot tell may skip it: the reflector then takes the first line as the sign).
 * - `watchChunks`, when implemented, is `watch` with the lines grouped as they arrived (one non-empty array per
 *   network chunk, or per write of an in-process server): the same lines, order, completion, errors and teardown.
 * - `onWarnings` (of `get` and of a watch) receives the API warnings of an accepted answer before anything is
 *   emitted; an implementation that cannot see headers may never call it. A refusal's are on its `ApiError`.
 */
export interface Transport {
  /** One GET of `path` (a list page, a discovery document): emits the decoded JSON body, then completes. */
  get(path: string, query: QueryParams, options?: Pick<RequestOptions, 'accept' | 'onWarnings'>): Observable<unknown>;
  /** One watch of `path`: emits the stream's raw lines in arrival order; completes on a clean server close. */
  watch(
    path: string,
    query: QueryParams,
    options?: Omit<WatchRequestOptions, 'signal' | 'userAgent'>,
  ): Observable<string>;
  /**
   * Optional: the watch as batches of lines that arrived together. The reflector prefers it, so that the deltas of
   * one chunk become one store batch (one snapshot); without it every line is a batch of its own.
   */
  watchChunks?(
    path: string,
    query: QueryParams,
    options?: Omit<WatchRequestOptions, 'signal' | 'userAgent'>,
  ): Observable<readonly string[]>;
  /** One request of any method: emits the 2xx response, then completes; never retries. */
  request(request: TransportRequest): Observable<TransportResponse>;
}

/** The transport of a connection: the transport itself, or {@link kubeTransport} of a KubeConfig. */
export function transportOf(connection: Connection): Transport {
  return isTransport(connection) ? connection : kubeTransport(connection);
}

function isTransport(connection: Connection): connection is Transport {
  const candidate = connection as Partial<Transport>;
  return (
    typeof candidate.request === 'function' &&
    typeof candidate.watch === 'function' &&
    typeof candidate.get === 'function'
  );
}

/** Options of {@link kubeTransport}. */
export interface KubeTransportOptions {
  /**
   * The `User-Agent` of every request (lists, watches, discovery, writes, Leases). Default `defaultUserAgent()`:
   * `<program>/v<rxkube version> (<os>/<arch>) rxkube node/<node version>`. kube-apiserver records a write without a
   * `fieldManager` under its part before the first `/`, and audit logs show it whole: name your controller here
   * (`my-operator/v1.2.0`), as client-go's `rest.Config.UserAgent`. A KubeConfig has no such setting.
   */
  readonly userAgent?: string;
}

const transports = new WeakMap<KubeConfig, Map<string | undefined, Transport>>();

/**
 * The HTTP {@link Transport} for a KubeConfig; one instance per KubeConfig and `userAgent`, so caches keyed by
 * transport (such as discovery) are per KubeConfig too. Every entry point given the KubeConfig itself uses the one
 * without options; pass the transport instead of the KubeConfig to use another.
 *
 * Connections are kept open and reused across requests (one pool per protocol for the process, keyed by host, port
 * and TLS options; idle connections close after 30 s, sooner if the server announces a shorter keep-alive, and never
 * keep the process alive). A GET that fails because the server closed its pooled connection is sent once more on a
 * new connection; a write is never sent twice. A cluster with a `proxy-url` uses client-node's proxy agent instead.
 *
 * # Guarantees
 * - Every request carries the `User-Agent` of `options.userAgent`, else `defaultUserAgent()`.
 * - A `userAgent` that is not a printable header value is a `TypeError` here.
 */
export function kubeTransport(kc: KubeConfig, options: KubeTransportOptions = {}): Transport {
  checkUserAgent('kubeTransport', options.userAgent);
  const { userAgent } = options;
  let byAgent = transports.get(kc);
  if (byAgent === undefined) {
    byAgent = new Map();
    transports.set(kc, byAgent);
  }
  let transport = byAgent.get(userAgent);
  if (transport === undefined) {
    transport = {
      get: (path, query, getOptions) =>
        fromAbortable((signal) => getJson(kc, path, query, { ...getOptions, signal, userAgent })),
      watch: (path, query, watchOptions) => watchLines(kc, path, query, { ...watchOptions, userAgent }),
      watchChunks: (path, query, watchOptions) => watchLineChunks(kc, path, query, { ...watchOptions, userAgent }),
      request: (request) => fromAbortable((signal) => sendRequest(kc, request, signal, userAgent)),
    };
    byAgent.set(userAgent, transport);
  }
  return transport;
}

/**
 * A cold Observable of one Promise-returning request: subscribing starts it, unsubscribing before it settled aborts
 * it through its signal.
 */
function fromAbortable<V>(start: (signal: AbortSignal) => Promise<V>): Observable<V> {
  return new Observable<V>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    start(controller.signal).then(
      (value) => {
        settled = true;
        subscriber.next(value);
        subscriber.complete();
      },
      (err: unknown) => {
        settled = true;
        subscriber.error(err);
      },
    );
    // Only an in-flight request needs aborting; a settled one has already released its socket.
    return () => {
      if (!settled) controller.abort();
    };
  });
}
