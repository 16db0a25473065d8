/**
 * `virtualCluster()`: the in-memory API server's core served in process as a {@link Transport}, on the caller's
 * scheduler, with seeded randomness.
 * @module
 */
import { STATUS_CODES } from 'node:http';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { splitApiVersion } from '../../objects/index.js';
import { collectionPath } from '../../resources/index.js';
import type { WatchHealthReport } from '../../watch/index.js';
import {
  apiErrorFromResponse, defaultUserAgent, LineSplitter, parseJsonBody, reportWarnings, requestBodyOf, responseOf, TransportError,
  type QueryParams, type RequestOptions, type Transport, type TransportRequest, type TransportResponse, type WatchRequestOptions,
} from '../../transport/index.js';
import {
  atVersion, cloneJson, createServerCore, groupVersion, seededRuntime, storageKey, type ApiRequest, type ResponseHeaders,
} from '../apiserver/index.js';
import { exchange, type CutExchange, type ExchangeEvent } from './exchange.js';
import type { ConflictKeyOptions, RawExchangeRequest, RawExchangeResponse, VirtualCluster, VirtualClusterOptions, VirtualFaults } from './types.js';

function splitPath(path: string): { path: string; search: string } {
  const q = path.indexOf('?');
  return q < 0 ? { path, search: '' } : { path: path.slice(0, q), search: path.slice(q) };
}

/** Joins the query of a path (if any) with extra parameters, as `URL.searchParams.set` does over HTTP. */
function withQuery(path: string, query: QueryParams): { path: string; search: string } {
  const split = splitPath(path);
  const params = new URLSearchParams(split.search);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return { path: split.path, search: text === '' ? '' : `?${text}` };
}

function lowerCased(headers: ResponseHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function bodyText(body: string | Buffer): string {
  return typeof body === 'string' ? body : body.toString('utf8');
}

function failure(status: number, headers: ResponseHeaders, body: string | Buffer): Error {
  const h = lowerCased(headers);
  return apiErrorFromResponse({
    statusCode: status, statusMessage: STATUS_CODES[status], body: bodyText(body), retryAfter: h['retry-after'], date: h['date'],
    warningHeaders: warningLines(h),
  });
}

/** The `Warning` header of an answer, as the lines the HTTP transport would read (the core writes one at most). */
function warningLines(lowerCasedHeaders: Readonly<Record<string, string>>): readonly string[] {
  const value = lowerCasedHeaders['warning'];
  return value === undefined ? [] : [value];
}

const ok = (status: number): boolean => status >= 200 && status < 300;

/**
 * Starts a virtual cluster on `options.scheduler`.
 *
 * # Guarantees
 * - The server core is the one `startTestCluster` serves over HTTP: storage, validation, watch, write, apply and
 *   fault semantics are the same code.
 * - The default namespaces exist when it returns (created at the scheduler's current time).
 *
 * # Caveats
 * - The `scheduler`'s clock is the server's clock: inside `TestScheduler.run()` timestamps start at the epoch.
 */
export function virtualCluster(options: VirtualClusterOptions): VirtualCluster {
  const { scheduler } = options;
  const seed = options.seed ?? 0;
  const open = new Set<CutExchange>();
  let closed = false;
  const runtime = seededRuntime(scheduler, seed);
  // Sent as the HTTP transport sends it, so a write without a fieldManager is recorded under the same manager.
  const userAgent = defaultUserAgent();
  const cutAll = (reason: string): void => {
    for (const cut of [...open]) cut(reason);
  };
  const core = createServerCore(options, runtime, {
    restart: () => cutAll('connection reset by the restart fault'),
    serverAddress: () => 'virtual-cluster:443',
  });
  const register = (cut: CutExchange): (() => void) => {
    open.add(cut);
    return () => open.delete(cut);
  };

  const serve = (method: string, path: string, search: string, headers: Record<string, string | undefined>, body?: string | Uint8Array): Observable<ExchangeEvent> => {
    const request: ApiRequest = {
      method: method.toUpperCase(), path, search, headers,
      body: body === undefined ? Buffer.alloc(0) : typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body),
    };
    const served = exchange(core, scheduler, request, register);
    // Checked at subscription (the request is cold), and failed like a refused connection: later, not inside it.
    return new Observable<ExchangeEvent>((subscriber) => closed
      ? scheduler.schedule(() => subscriber.error(new TransportError('NetworkError', `${method} ${path}: the virtual cluster is closed`)), 0)
      : served.subscribe(subscriber));
  };

  const whole = (events: Observable<ExchangeEvent>): Observable<{ status: number; headers: ResponseHeaders; body: string | Buffer }> =>
    new Observable((subscriber) => {
      let status = 0;
      let headers: ResponseHeaders = {};
      let text = '';
      return events.subscribe({
        next: (event) => {
          if (event.kind === 'response') subscriber.next({ status: event.status, headers: event.headers, body: event.body });
          else if (event.kind === 'head') ({ status, headers } = event);
          else if (event.kind === 'chunk') text += event.text;
          else subscriber.next({ status, headers, body: text });
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });

  /**
   * One whole answer as the HTTP transport hands it out: `decode` of a 2xx answer (its throw is the error), the
   * `ApiError` decoded from the Status body of any other.
   */
  const decoded = <V>(events: Observable<ExchangeEvent>, decode: (status: number, headers: ResponseHeaders, text: string) => V): Observable<V> =>
    new Observable<V>((subscriber) => whole(events).subscribe({
      next: ({ status, headers, body }) => {
        if (!ok(status)) {
          subscriber.error(failure(status, headers, body));
          return;
        }
        let value: V;
        try {
          value = decode(status, headers, bodyText(body));
        } catch (error) {
          subscriber.error(error);
          return;
        }
        subscriber.next(value);
        subscriber.complete();
      },
      error: (error: unknown) => subscriber.error(error),
    }));

  const get = (path: string, query: QueryParams, getOptions?: Pick<RequestOptions, 'accept' | 'onWarnings'>): Observable<unknown> => {
    const target = withQuery(path, query);
    return decoded(serve('GET', target.path, target.search, { accept: getOptions?.accept ?? 'application/json', 'user-agent': userAgent }), (_status, headers, text) => {
      reportWarnings(warningLines(lowerCased(headers)), getOptions?.onWarnings);
      return parseJsonBody(target.path, text);
    });
  };

  const request = (req: TransportRequest): Observable<TransportResponse> => {
    const target = withQuery(req.path, req.query ?? {});
    const body = requestBodyOf(req);
    const headers: Record<string, string | undefined> = { accept: req.accept ?? 'application/json', 'user-agent': userAgent };
    if (body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    }
    return decoded(serve(req.method, target.path, target.search, headers, body), (status, responseHeaders, text): TransportResponse => {
      const h = lowerCased(responseHeaders);
      return responseOf(req, status, h, text, warningLines(h));
    });
  };

  /** The watch as the lines of each chunk the server core wrote, so that lines written together arrive together. */
  const watchChunks = (path: string, query: QueryParams, watchOptions: Omit<WatchRequestOptions, 'signal'> = {}): Observable<readonly string[]> => {
    const target = withQuery(path, { ...query, watch: 'true' });
    return new Observable<readonly string[]>((subscriber) => {
      const splitter = new LineSplitter(watchOptions.maxLineChars);
      return serve('GET', target.path, target.search, { accept: watchOptions.accept ?? 'application/json', 'user-agent': userAgent }).subscribe({
        next: (event) => {
          switch (event.kind) {
            case 'response':
              if (!ok(event.status)) subscriber.error(failure(event.status, event.headers, event.body));
              else {
                reportWarnings(warningLines(lowerCased(event.headers)), watchOptions.onWarnings);
                subscriber.complete();
              }
              return;
            case 'head':
              if (ok(event.status)) {
                reportWarnings(warningLines(lowerCased(event.headers)), watchOptions.onWarnings);
                watchOptions.onOpen?.();
              }
              return;
            case 'chunk': {
              watchOptions.onActivity?.();
              let lines: string[];
              try {
                lines = splitter.push(Buffer.from(event.text, 'utf8'));
              } catch (error) {
                subscriber.error(new TransportError('LineTooLong', `watch ${path}: ${(error as Error).message}`));
                return;
              }
              if (lines.length > 0) subscriber.next(lines);
              return;
            }
            case 'end': {
              const last = splitter.flush();
              if (last !== undefined) subscriber.next([last]);
              subscriber.complete();
            }
          }
        },
        error: (error: unknown) => subscriber.error(error instanceof TransportError && error.reason === 'ConnectionClosed'
          ? new TransportError('ConnectionClosed', `watch ${path}: stream cut: ${error.message}`, { cause: error })
          : error),
      });
    });
  };

  const watch = (path: string, query: QueryParams, watchOptions?: Omit<WatchRequestOptions, 'signal'>): Observable<string> =>
    new Observable<string>((subscriber) => watchChunks(path, query, watchOptions).subscribe({
      next: (lines) => {
        for (const line of lines) {
          if (subscriber.closed) return;
          subscriber.next(line);
        }
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }));

  const serveRaw = (raw: RawExchangeRequest): Observable<ExchangeEvent> => {
    const target = splitPath(raw.path);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw.headers ?? {})) headers[name.toLowerCase()] = value;
    if (raw.body !== undefined) headers['content-length'] ??= String(typeof raw.body === 'string' ? Buffer.byteLength(raw.body) : raw.body.byteLength);
    return serve(raw.method, target.path, target.search, headers, raw.body);
  };

  const pathOf = (key: ConflictKeyOptions): string => {
    const { group, version } = splitApiVersion(key.resource.apiVersion);
    const info = core.state.registry.all().find((r) => r.group === group && r.kind === key.resource.kind && r.versions.includes(version));
    if (info === undefined) throw new RangeError(`the virtual cluster serves no ${key.resource.kind} in ${key.resource.apiVersion}`);
    const resource = { group, version, kind: info.kind, plural: info.plural, namespaced: info.namespaced };
    return `${collectionPath(resource, info.namespaced ? key.namespace ?? 'default' : undefined)}/${key.name}`;
  };

  const faults: VirtualFaults = {
    ...core.faults,
    conflictNext: (o) => core.faults.conflictNext('path' in o ? o : { path: pathOf(o), ...(o.count !== undefined ? { count: o.count } : {}) }),
  };

  const health: WatchHealthReport[] = [];
  return {
    scheduler,
    randomSeed: seed,
    faults,
    health,
    onHealth: (report) => {
      health.push(report);
      options.onHealth?.(report);
    },
    get,
    watch,
    watchChunks,
    request,
    seed: (objects, seedOptions) => core.seed(objects, seedOptions),
    update: (objects, seedOptions) => core.update(objects, seedOptions),
    list: (resource, namespace) => {
      const [group, version] = resource.apiVersion.includes('/') ? resource.apiVersion.split('/') as [string, string] : ['', resource.apiVersion];
      const info = core.state.registry.all().find((r) => r.group === group && r.kind === resource.kind && r.versions.includes(version));
      if (info === undefined) throw new RangeError(`the virtual cluster serves no ${resource.kind} in ${resource.apiVersion}`);
      const apiVersion = groupVersion(group, version);
      return [...core.state.store.values(storageKey(info))]
        .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
        .map((o) => cloneJson(atVersion(o, apiVersion)) as KubernetesObject)
        .sort((a, b) => {
          const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
          const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
          return ka < kb ? -1 : ka > kb ? 1 : 0;
        });
    },
    exchangeStream: (raw) => serveRaw(raw),
    exchange: (raw) => {
      return new Observable<RawExchangeResponse>((subscriber) => whole(serveRaw(raw)).subscribe({
        next: ({ status, headers: h, body }) => {
          subscriber.next({ status, headers: lowerCased(h), text: bodyText(body) });
          subscriber.complete();
        },
        error: (error: unknown) => subscriber.error(error),
      }));
    },
    resourceVersion: () => core.resourceVersion(),
    openWatches: () => core.openWatches(),
    requestLog: core.requestLog,
    close: () => {
      if (closed) return;
      closed = true;
      core.state.hub.dropAll('clean');
      cutAll('the virtual cluster closed');
      runtime.cancelAll();
    },
  };
}
