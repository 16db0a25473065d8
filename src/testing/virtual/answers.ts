/**
 * How a client reads the virtual cluster's answers: the exchange events of one request folded into a whole answer,
 * its headers, warnings and failures read as the HTTP transport reads them.
 * @module
 */
import { STATUS_CODES } from 'node:http';
import { Observable } from 'rxjs';
import { apiErrorFromResponse, type QueryParams } from '../../transport/index.js';
import type { ResponseHeaders } from '../apiserver/index.js';
import type { ExchangeEvent } from './exchange.js';

/** A path split at its query: `search` keeps the `?` (or is `''`). */
export function splitPath(path: string): { path: string; search: string } {
  const q = path.indexOf('?');
  return q < 0 ? { path, search: '' } : { path: path.slice(0, q), search: path.slice(q) };
}

/** Joins the query of a path (if any) with extra parameters, as `URL.searchParams.set` does over HTTP. */
export function withQuery(path: string, query: QueryParams): { path: string; search: string } {
  const split = splitPath(path);
  const params = new URLSearchParams(split.search);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return { path: split.path, search: text === '' ? '' : `?${text}` };
}

/** The headers with lower-case names. */
export function lowerCased(headers: ResponseHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** The body as UTF-8 text. */
export function bodyText(body: string | Buffer): string {
  return typeof body === 'string' ? body : body.toString('utf8');
}

/** The `Warning` header of an answer, as the lines the HTTP transport would read (the core writes one at most). */
export function warningLines(lowerCasedHeaders: Readonly<Record<string, string>>): readonly string[] {
  const value = lowerCasedHeaders['warning'];
  return value === undefined ? [] : [value];
}

/** The `ApiError` the HTTP transport decodes from a non-2xx answer. */
export function failure(status: number, headers: ResponseHeaders, body: string | Buffer): Error {
  const h = lowerCased(headers);
  return apiErrorFromResponse({
    statusCode: status,
    statusMessage: STATUS_CODES[status],
    body: bodyText(body),
    retryAfter: h['retry-after'],
    date: h['date'],
    warningHeaders: warningLines(h),
  });
}

/** True for a 2xx status. */
export const ok = (status: number): boolean => status >= 200 && status < 300;

/** One whole answer of an exchange: a `response` as it is, a stream folded once it ends. */
export function whole(
  events: Observable<ExchangeEvent>,
): Observable<{ status: number; headers: ResponseHeaders; body: string | Buffer }> {
  return new Observable((subscriber) => {
    let status = 0;
    let headers: ResponseHeaders = {};
    let text = '';
    return events.subscribe({
      next: (event) => {
        if (event.kind === 'response')
          subscriber.next({ status: event.status, headers: event.headers, body: event.body });
        else if (event.kind === 'head') ({ status, headers } = event);
        else if (event.kind === 'chunk') text += event.text;
        else subscriber.next({ status, headers, body: text });
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
  });
}
