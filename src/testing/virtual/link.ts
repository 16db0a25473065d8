/**
 * One client's way to the virtual cluster's server core: its requests as `Transport` (from `rxkube/extend`) calls, carried by a
 * network with its own latency, watch lag and faults.
 * @module
 */
import { Observable, type SchedulerLike } from 'rxjs';
import {
  defaultUserAgent,
  LineSplitter,
  parseJsonBody,
  parseWarningHeaders,
  reportWarnings,
  requestBodyOf,
  responseOf,
  TransportError,
  type QueryParams,
  type RequestOptions,
  type TransportRequest,
  type TransportResponse,
  type WatchRequestOptions,
} from '../../transport/index.js';
import type { WatchHealthHandler } from '../../watch/index.js';
import { warningHeaders, type ApiRequest, type ResponseHeaders, type ServerCore } from '../apiserver/index.js';
import { bodyText, failure, lowerCased, ok, splitPath, warningLines, whole, withQuery } from './answers.js';
import { exchange, type CutExchange, type ExchangeEvent } from './exchange.js';
import { delayOf, type NetworkFaultState, type WarningState, type NetworkFault } from './network.js';
import type { RawExchangeRequest, VirtualLink, VirtualLinkOptions, VirtualRequestInfo } from './types.js';

/** What a link needs of its cluster. */
export interface LinkContext {
  readonly core: ServerCore;
  readonly scheduler: SchedulerLike;
  /** The cluster's delay generator (seeded, apart from the server's own randomness). */
  readonly random: () => number;
  /** The network faults every link meets before its own. */
  readonly network: NetworkFaultState;
  /** The API warnings armed for the next answers. */
  readonly warnings: WarningState;
  /** The health handler of the watches over the cluster. */
  readonly onHealth: WatchHealthHandler;
  /** Keeps an open exchange cuttable (`restart`, `close`); returns its removal. */
  register(cut: CutExchange): () => void;
  /** True once the cluster is closed. */
  closed(): boolean;
}

/** A link and its raw entry point (the cluster's `exchange` and `exchangeStream` go through its own). */
export interface LinkFront {
  readonly link: VirtualLink;
  serveRaw(raw: RawExchangeRequest): Observable<ExchangeEvent>;
}

function requestInfo(method: string, path: string, search: string): VirtualRequestInfo {
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(search)) if (!(key in query)) query[key] = value;
  return { method, path, query, watch: query['watch'] === 'true' || query['watch'] === '1' };
}

/** An exchange whose answer is lost: `ConnectionClosed` in its place, once the server has served it. */
function losingAnswer(events: Observable<ExchangeEvent>, method: string, path: string): Observable<ExchangeEvent> {
  return new Observable<ExchangeEvent>((subscriber) =>
    events.subscribe({
      next: (event) => {
        if (event.kind === 'response' || event.kind === 'head') {
          subscriber.error(
            new TransportError(
              'ConnectionClosed',
              `${method} ${path}: the connection closed before the answer arrived`,
            ),
          );
        } else subscriber.next(event);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}

/** An exchange whose answer carries the API warnings `texts` too, after those the server wrote. */
function warning(events: Observable<ExchangeEvent>, texts: readonly string[]): Observable<ExchangeEvent> {
  const withTexts = (headers: ResponseHeaders): ResponseHeaders => {
    const written = Object.entries(headers)
      .filter(([name]) => name.toLowerCase() === 'warning')
      .map(([, value]) => value);
    const rest = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'warning'));
    return { ...rest, ...warningHeaders([...parseWarningHeaders(written), ...texts]) };
  };
  return new Observable<ExchangeEvent>((subscriber) =>
    events.subscribe({
      next: (event) =>
        subscriber.next(
          event.kind === 'response' || event.kind === 'head' ? { ...event, headers: withTexts(event.headers) } : event,
        ),
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}

/**
 * Builds a link to `context.core`.
 *
 * # Guarantees
 * - Every request meets the cluster's network faults, then the link's own, when it is sent (subscribed); then its
 *   latency, drawn once; a watch's chunks each meet the watch lag, drawn per chunk.
 * - A request to a closed cluster fails with `TransportError('NetworkError')` in a zero-delay action.
 */
export function createLink(context: LinkContext, options: VirtualLinkOptions, faults: NetworkFaultState): LinkFront {
  const { core, scheduler, random } = context;
  // Sent as the HTTP transport sends it, so a write without a fieldManager is recorded under the same manager.
  const userAgent = options.userAgent ?? defaultUserAgent();
  const failLater = (error: Error, ms: number) =>
    new Observable<never>((subscriber) => scheduler.schedule(() => subscriber.error(error), ms));

  const sent = (
    method: string,
    path: string,
    search: string,
    headers: Record<string, string | undefined>,
    body: string | Uint8Array | undefined,
    fault: NetworkFault | undefined,
    info: VirtualRequestInfo,
  ): Observable<ExchangeEvent> => {
    const latencyMs = delayOf(options.latency, info, random);
    if (fault === 'refuse')
      return failLater(new TransportError('NetworkError', `${method} ${path}: connection refused`), latencyMs);
    if (fault === 'hang') {
      return new Observable<ExchangeEvent>((subscriber) =>
        context.register((reason) => {
          scheduler.schedule(
            () => subscriber.error(new TransportError('ConnectionClosed', `${method} ${path}: ${reason}`)),
            0,
          );
        }),
      );
    }
    const request: ApiRequest = {
      method,
      path,
      search,
      headers,
      latencyMs,
      body:
        body === undefined ? Buffer.alloc(0) : typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body),
    };
    const lag = info.watch ? () => delayOf(options.watchLag, info, random) : undefined;
    const texts = context.warnings.take(info, `${path}${search}`);
    const exchanged = exchange(core, scheduler, request, (cut) => context.register(cut), lag);
    const served = texts.length === 0 ? exchanged : warning(exchanged, texts);
    return fault === 'loseAnswer' ? losingAnswer(served, method, path) : served;
  };

  const serve = (
    method: string,
    path: string,
    search: string,
    headers: Record<string, string | undefined>,
    body?: string | Uint8Array,
  ): Observable<ExchangeEvent> => {
    const upper = method.toUpperCase();
    // Checked at subscription (the request is cold), and failed like a refused connection: later, not inside it.
    return new Observable<ExchangeEvent>((subscriber) => {
      if (context.closed()) {
        return scheduler.schedule(
          () =>
            subscriber.error(new TransportError('NetworkError', `${method} ${path}: the virtual cluster is closed`)),
          0,
        );
      }
      const info = requestInfo(upper, path, search);
      const fault = context.network.take(info, `${path}${search}`) ?? faults.take(info, `${path}${search}`);
      return sent(upper, path, search, headers, body, fault, info).subscribe(subscriber);
    });
  };

  /**
   * One whole answer as the HTTP transport hands it out: `decode` of a 2xx answer (its throw is the error), the
   * `ApiError` decoded from the Status body of any other.
   */
  const decoded = <V>(
    events: Observable<ExchangeEvent>,
    decode: (status: number, headers: ResponseHeaders, text: string) => V,
  ): Observable<V> =>
    new Observable<V>((subscriber) =>
      whole(events).subscribe({
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
      }),
    );

  const get = (
    path: string,
    query: QueryParams,
    getOptions?: Pick<RequestOptions, 'accept' | 'onWarnings'>,
  ): Observable<unknown> => {
    const target = withQuery(path, query);
    return decoded(
      serve('GET', target.path, target.search, {
        accept: getOptions?.accept ?? 'application/json',
        'user-agent': userAgent,
      }),
      (_status, headers, text) => {
        reportWarnings(warningLines(lowerCased(headers)), getOptions?.onWarnings);
        return parseJsonBody(target.path, text);
      },
    );
  };

  const request = (req: TransportRequest): Observable<TransportResponse> => {
    const target = withQuery(req.path, req.query ?? {});
    const body = requestBodyOf(req);
    const headers: Record<string, string | undefined> = {
      accept: req.accept ?? 'application/json',
      'user-agent': userAgent,
    };
    if (body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    }
    return decoded(
      serve(req.method, target.path, target.search, headers, body),
      (status, responseHeaders, text): TransportResponse => {
        const h = lowerCased(responseHeaders);
        return responseOf(req, status, h, text, warningLines(h));
      },
    );
  };

  /** The watch as the lines of each chunk the server core wrote, so that lines written together arrive together. */
  const watchChunks = (
    path: string,
    query: QueryParams,
    watchOptions: Omit<WatchRequestOptions, 'signal'> = {},
  ): Observable<readonly string[]> => {
    const target = withQuery(path, { ...query, watch: 'true' });
    return new Observable<readonly string[]>((subscriber) => {
      const splitter = new LineSplitter(watchOptions.maxLineChars);
      return serve('GET', target.path, target.search, {
        accept: watchOptions.accept ?? 'application/json',
        'user-agent': userAgent,
      }).subscribe({
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
        error: (error: unknown) =>
          subscriber.error(
            error instanceof TransportError && error.reason === 'ConnectionClosed'
              ? new TransportError('ConnectionClosed', `watch ${path}: stream cut: ${error.message}`, { cause: error })
              : error,
          ),
      });
    });
  };

  const watch = (
    path: string,
    query: QueryParams,
    watchOptions?: Omit<WatchRequestOptions, 'signal'>,
  ): Observable<string> =>
    new Observable<string>((subscriber) =>
      watchChunks(path, query, watchOptions).subscribe({
        next: (lines) => {
          for (const line of lines) {
            if (subscriber.closed) return;
            subscriber.next(line);
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );

  const serveRaw = (raw: RawExchangeRequest): Observable<ExchangeEvent> => {
    const target = splitPath(raw.path);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw.headers ?? {})) headers[name.toLowerCase()] = value;
    if (raw.body !== undefined)
      headers['content-length'] ??= String(
        typeof raw.body === 'string' ? Buffer.byteLength(raw.body) : raw.body.byteLength,
      );
    return serve(raw.method, target.path, target.search, headers, raw.body);
  };

  return {
    link: { userAgent, faults, onHealth: context.onHealth, get, request, watch, watchChunks },
    serveRaw,
  };
}
