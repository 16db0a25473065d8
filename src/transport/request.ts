/**
 * The general request of the transport seam: any method, path, query and body. Writes go through it, never around
 * it, so an in-process server behind a `Transport` serves a whole controller, writes included.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { headerValue, openRequest, readBody } from './connection.js';
import { TransportError } from './errors.js';
import type { QueryParams } from './http.js';
import { parseWarningHeaders, warningHeaderValues } from './warnings.js';
import { parseJson } from './json.js';

/** The HTTP methods the API server serves. */
export type RequestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request through the transport. */
export interface TransportRequest {
  /** The HTTP method. */
  readonly method: RequestMethod;
  /** Path relative to the server, e.g. `/api/v1/namespaces/default/pods/web`. */
  readonly path: string;
  /** Query parameters; `undefined` values are left out. */
  readonly query?: QueryParams;
  /** The body: a string or bytes as they are, anything else serialized as JSON. Omitted: no body. */
  readonly body?: unknown;
  /** The body's `Content-Type`; `application/json` by default when there is a body. */
  readonly contentType?: string;
  /** The `Accept` header; `application/json` by default. */
  readonly accept?: string;
}

/** A successful (2xx) response. */
export interface TransportResponse {
  /** The HTTP status, 200–299. */
  readonly status: number;
  /** The body, parsed as JSON when the server said it is JSON (or sent nothing else), else the text. */
  readonly body: unknown;
  /** Response headers, lower-cased names, first value only. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The API server's warnings (`Warning: 299` headers, see `parseWarningHeaders`), in order; empty when it sent
   * none. A transport written before warnings existed may leave it out: read a missing list as empty.
   */
  readonly warnings?: readonly string[];
}

/**
 * Sends `request` through `kc` and resolves with the response.
 *
 * # Guarantees
 * - Auth, TLS and proxies come from client-node's `KubeConfig`.
 * - A status outside 2xx rejects with `ApiError`, decoded from the `Status` body (code, reason, message, causes,
 *   Retry-After); a network failure, a cut body or a body that claims JSON and is not, with `TransportError`.
 * - Aborting `signal` aborts the request at once and rejects with the signal's reason.
 * - The `User-Agent` is `userAgent`, else `defaultUserAgent()`.
 */
export async function sendRequest(
  kc: KubeConfig,
  request: TransportRequest,
  signal?: AbortSignal,
  userAgent?: string,
): Promise<TransportResponse> {
  const { method, path } = request;
  const res = await openRequest(kc, method, path, request.query ?? {}, {
    accept: request.accept,
    contentType: request.contentType,
    body: requestBodyOf(request),
    signal,
    userAgent,
  });
  const text = await readBody(res, Number.POSITIVE_INFINITY);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    const first = headerValue(value);
    if (first !== undefined) headers[name] = first;
  }
  return responseOf(request, res.statusCode ?? 0, headers, text, warningHeaderValues(res.headersDistinct));
}

/** The body of `request` as sent: strings and bytes as they are, anything else as JSON; undefined for none. */
export function requestBodyOf(request: TransportRequest): string | Uint8Array | undefined {
  return request.body === undefined || typeof request.body === 'string' || request.body instanceof Uint8Array
    ? request.body
    : JSON.stringify(request.body);
}

/**
 * A 2xx answer to `request` as a {@link TransportResponse}: the body parsed as JSON when the server said it is
 * JSON (or said nothing), else the text; `TransportError('MalformedResponse')` for JSON that does not parse.
 * `warningHeaders` are the answer's `Warning` header field values, one per header line, as received; they are
 * parsed here (`parseWarningHeaders`), as `apiErrorFromResponse` parses those of an error answer.
 */
export function responseOf(
  request: TransportRequest,
  status: number,
  headers: Readonly<Record<string, string>>,
  text: string,
  warningHeaders: readonly string[] = [],
): TransportResponse {
  const warnings = parseWarningHeaders(warningHeaders);
  const contentType = headers['content-type'] ?? '';
  if (text === '' || !(contentType === '' || contentType.includes('json')))
    return { status, body: text, headers, warnings };
  try {
    return { status, body: parseJson(text) as unknown, headers, warnings };
  } catch (err) {
    throw new TransportError(
      'MalformedResponse',
      `${request.method} ${request.path}: response body is not JSON (${text.length} chars)`,
      { cause: err },
    );
  }
}
