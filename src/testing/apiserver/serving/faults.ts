/**
 * Fault injection: what tests use to make the server misbehave the way real clusters do.
 * @module
 */
import { ApiError, conflict, internalError, unauthorized, unknownResource } from '../machinery/index.js';

/** Options of {@link Faults.failNext}. */
export interface FailNextOptions {
  /** How many matching requests fail (default 1). */
  readonly count?: number;
  /** Only this HTTP method (case-insensitive). */
  readonly method?: string;
  /** Only paths starting with this string, or (RegExp) whose path+query matches. */
  readonly path?: string | RegExp;
  /** The HTTP status to answer with, e.g. 429, 500, 503, 403. */
  readonly status: number;
  /** For 429 and 503: the `Retry-After` header and `details.retryAfterSeconds` (default 1 for 429). */
  readonly retryAfterSeconds?: number;
  /**
   * The Status message, in place of the one the real server words for `status` (a quota or an admission webhook's
   * denial, say); the reason, details and headers stay those of `status`.
   */
  readonly message?: string;
}

/** Options of {@link Faults.conflictNext}. */
export interface ConflictNextOptions {
  /**
   * The object's path, e.g. `/api/v1/namespaces/default/configmaps/a`: the next write (PUT, PATCH or DELETE) to it
   * or one of its subresources answers 409 Conflict.
   */
  readonly path: string;
  /** How many such writes conflict (default 1). */
  readonly count?: number;
}

/** Options of {@link Faults.failWrites}. */
export interface FailWritesOptions {
  /** 500 (InternalError) or 429 (TooManyRequests, with Retry-After); any other 4xx/5xx is accepted too. */
  readonly status: number;
  /** How many writes (POST, PUT, PATCH, DELETE) fail (default 1). */
  readonly count?: number;
  /** The `Retry-After` header and `details.retryAfterSeconds` (default 1 for 429). */
  readonly retryAfterSeconds?: number;
}

/**
 * Faults a test can inject, programmatically or via `POST /__rxkube/faults/<name>` with the same options as JSON
 * (`path` is a prefix string there; use `pathRegex` for a regular expression).
 *
 * # Guarantees
 * - Every fault acts only on requests and streams that exist or arrive after it is set; state is never corrupted.
 */
export interface Faults {
  /** Ends every open watch: `clean` finishes the chunked body, `abrupt` destroys the socket. Returns how many. */
  dropWatches(options?: { readonly mode?: 'clean' | 'abrupt' }): number;
  /** Forgets history up to `toResourceVersion` (default: now): older watches get 410 ERROR, older continue tokens 410. */
  compact(toResourceVersion?: number): void;
  /** The next `count` matching requests get a failure Status with the real reason and message. */
  failNext(options: FailNextOptions): void;
  /** Delays every response by `ms` (0 clears). */
  latency(ms: number): void;
  /** Open watches send nothing for `ms`, then flush what they held, in order. */
  stallWatches(ms: number): void;
  /** Writes one bad line into every open watch; returns how many streams got it. */
  injectMalformedLine(options?: { readonly kind?: 'malformed' | 'truncated' }): number;
  /**
   * The next write to one object answers 409 Conflict, worded as the real optimistic-concurrency conflict
   * (`Operation cannot be fulfilled on configmaps "a": the object has been modified; ...`); nothing is stored.
   */
  conflictNext(options: ConflictNextOptions): void;
  /** The next `count` writes (any object) answer `status` (500, or 429 with Retry-After); nothing is stored. */
  failWrites(options: FailWritesOptions): void;
  /** Destroys every connection (in-flight requests and watches) at once; the listener stays up on the same port. */
  restart(): void;
  /** Clears pending failures (write faults included) and latency. */
  clear(): void;
}

interface PendingFailure {
  remaining: number;
  readonly options: FailNextOptions;
  /** Only these methods (write faults). */
  readonly methods?: ReadonlySet<string>;
  /** A conflict on the object at this path (and its subresources). */
  readonly conflictPath?: string;
}

const writeMethods: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const updateMethods: ReadonlySet<string> = new Set(['PUT', 'PATCH', 'DELETE']);

/** The 409 a write to `path` (an object path, `/api/v1/namespaces/ns/plural/name[/sub]`) gets. */
function conflictFor(path: string): ApiError {
  const parts = path.split('/').filter((p) => p !== '');
  const group = parts[0] === 'apis' ? (parts[1] ?? '') : '';
  let rest = parts.slice(parts[0] === 'apis' ? 3 : 2);
  if (rest[0] === 'namespaces' && rest.length >= 4) rest = rest.slice(2);
  return conflict({ group, plural: rest[0] ?? '' }, rest[1] ?? '');
}

/**
 * The RBAC denial the real authorizer words for this request: against the resource for API paths
 * (`pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "default"`),
 * against the path otherwise.
 */
function forbiddenFor(method: string, path: string, query: URLSearchParams): ApiError {
  const user = 'system:serviceaccount:default:rxkube-test';
  const parts = path.split('/').filter((p) => p !== '');
  let rest: string[] | undefined;
  let group = '';
  if (parts[0] === 'api' && parts.length >= 3) rest = parts.slice(2);
  else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(3);
  }
  if (rest === undefined)
    return new ApiError(
      403,
      'Forbidden',
      `forbidden: User "${user}" cannot ${method.toLowerCase()} path "${path}"`,
      {},
    );
  if (rest[0] === 'watch') rest = rest.slice(1);
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [resource = '', name, sub] = rest;
  const watch = query.get('watch') === 'true' || query.get('watch') === '1' || parts.includes('watch');
  const verbs: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };
  const verb =
    method === 'GET'
      ? watch
        ? 'watch'
        : name === undefined
          ? 'list'
          : 'get'
      : method === 'DELETE'
        ? name === undefined
          ? 'deletecollection'
          : 'delete'
        : (verbs[method] ?? method.toLowerCase());
  const what = sub === undefined ? resource : `${resource}/${sub}`;
  const subject = group === '' ? resource : `${resource}.${group}`;
  const scope = namespace === '' ? 'at the cluster scope' : `in the namespace "${namespace}"`;
  return new ApiError(
    403,
    'Forbidden',
    `${subject}${name === undefined ? '' : ` "${name}"`} is forbidden: User "${user}" cannot ${verb} resource "${what}" in API group "${group}" ${scope}`,
    {
      ...(name !== undefined ? { name } : {}),
      ...(group !== '' ? { group } : {}),
      kind: resource,
    },
  );
}

function failureFor(options: FailNextOptions, method: string, path: string, query: URLSearchParams): ApiError {
  const worded = realFailureFor(options, method, path, query);
  if (options.message === undefined) return worded;
  const { reason, details } = worded.body;
  return new ApiError(worded.status, reason ?? '', options.message, details, { ...worded.headers });
}

function realFailureFor(options: FailNextOptions, method: string, path: string, query: URLSearchParams): ApiError {
  const retry = options.retryAfterSeconds ?? (options.status === 429 ? 1 : undefined);
  const headers: Record<string, string> = retry !== undefined ? { 'Retry-After': String(retry) } : {};
  const retryDetails = retry !== undefined ? { retryAfterSeconds: retry } : {};
  switch (options.status) {
    case 401:
      return unauthorized();
    case 403:
      return forbiddenFor(method, path, query);
    case 404:
      return unknownResource();
    case 409:
      return new ApiError(409, 'Conflict', 'Operation cannot be fulfilled: injected conflict', {});
    case 410:
      return new ApiError(410, 'Expired', 'The resourceVersion for the provided list is too old.');
    case 429:
      return new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', retryDetails, headers);
    case 500:
      return internalError('injected fault');
    case 503:
      return new ApiError(
        503,
        'ServiceUnavailable',
        'the server is currently unable to handle the request',
        retryDetails,
        headers,
      );
    case 504:
      return new ApiError(
        504,
        'Timeout',
        'the server was unable to return a response in the time allotted, but may still be processing the request',
        retryDetails,
        headers,
      );
    default:
      return new ApiError(
        options.status,
        options.status >= 500 ? 'InternalError' : 'BadRequest',
        `injected fault: HTTP ${options.status}`,
        retryDetails,
        headers,
      );
  }
}

/** The request-side fault state consulted by the router. */
export class FaultState {
  private failures: PendingFailure[] = [];
  latencyMs = 0;

  /** Arms a failure; a status outside 400-599 is a RangeError (the admin endpoint turns it into a 400). */
  add(options: FailNextOptions): void {
    if (!Number.isInteger(options.status) || options.status < 400 || options.status > 599) {
      throw new RangeError(`failNext status must be an HTTP error code (400-599), got ${String(options.status)}`);
    }
    this.failures.push({ remaining: options.count ?? 1, options });
  }

  /** Arms a failure for the next writes (POST, PUT, PATCH, DELETE) only. */
  addWriteFailure(options: FailWritesOptions): void {
    this.add({ ...options });
    const armed = this.failures.pop()!;
    this.failures.push({ ...armed, methods: writeMethods });
  }

  /** Arms a 409 Conflict for the next update or delete of the object at `options.path`. */
  addConflict(options: ConflictNextOptions): void {
    const path = options.path.replace(/\/+$/, '');
    this.failures.push({
      remaining: options.count ?? 1,
      options: { status: 409 },
      methods: updateMethods,
      conflictPath: path,
    });
  }

  /** The failure this request must get, consuming one count, or undefined. */
  take(method: string, pathAndQuery: string): ApiError | undefined {
    const path = pathAndQuery.split('?')[0]!;
    for (const failure of this.failures) {
      const o = failure.options;
      if (o.method !== undefined && o.method.toUpperCase() !== method.toUpperCase()) continue;
      if (failure.methods !== undefined && !failure.methods.has(method.toUpperCase())) continue;
      const at = failure.conflictPath;
      if (at !== undefined && path !== at && !path.startsWith(`${at}/`)) continue;
      if (typeof o.path === 'string' && !path.startsWith(o.path)) continue;
      if (o.path instanceof RegExp && !o.path.test(pathAndQuery)) continue;
      failure.remaining--;
      if (failure.remaining <= 0) this.failures = this.failures.filter((f) => f !== failure);
      if (at !== undefined) return conflictFor(at);
      return failureFor(o, method, path, new URLSearchParams(pathAndQuery.split('?')[1] ?? ''));
    }
    return undefined;
  }

  /** Drops armed failures and latency. */
  clear(): void {
    this.failures = [];
    this.latencyMs = 0;
  }
}

/** The bad lines `injectMalformedLine` writes. */
export const badLines = {
  malformed: 'this is not json {{{\n',
  truncated: '{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"trunc\n',
} as const;
