/**
 * The request log: what the server was asked and what it answered, one record per request, so a test can count
 * what its controller sent.
 * @module
 */
import { Subject, type Observable } from 'rxjs';
import type { ApiRequest, ResponseSink } from '../machinery/index.js';
import { parseResourcePath } from './router.js';

/**
 * The Kubernetes verb of a request, as kube-apiserver's RequestInfo names it (audit logs show the same); for a
 * request that names no resource (discovery, `/version`, `/openapi/...`), the method in lower case.
 */
export type RequestVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  | (string & {});

/**
 * One request and its answer.
 *
 * # Guarantees
 * - `code` is the HTTP status of the answer (200 for an accepted watch, whatever the stream carries later), or 0
 *   when the client went away before a delayed (latency fault) answer was written.
 * - `group`, `version`, `resource`, `subresource`, `namespace` and `name` are read from the path the way
 *   kube-apiserver's RequestInfo reads it, whether or not the server serves them (a 404 is logged with them too);
 *   they are absent for requests that name no resource, and `namespace` for cluster-wide ones.
 */
export interface RequestRecord {
  /** When the request arrived, on the server's clock (virtual time for a virtual cluster), RFC 3339 with ms. */
  readonly time: string;
  /** The HTTP method, upper-case. */
  readonly method: string;
  /** The path as sent (percent-encoded), without the query. */
  readonly path: string;
  /** The query parameters (the first value of each). */
  readonly query: Readonly<Record<string, string>>;
  /** The Kubernetes verb: `list` or `watch` for a collection GET, `create` for a POST, and so on. */
  readonly verb: RequestVerb;
  /** The API group (`''` for the core group) of a resource request. */
  readonly group?: string;
  /** The API version of a resource request. */
  readonly version?: string;
  /** The resource (plural) of a resource request. */
  readonly resource?: string;
  /** The subresource (`status`, `scale`...), when the path names one. */
  readonly subresource?: string;
  /** The namespace of a namespaced request. */
  readonly namespace?: string;
  /** The object's name, when the path names one (a create's name is in its body, not its path: none here). */
  readonly name?: string;
  /** The `User-Agent` header, when the client sent one. */
  readonly userAgent?: string;
  /** The HTTP status of the answer (see the guarantees). */
  readonly code: number;
}

/**
 * What a test cluster was asked, newest last.
 *
 * # Guarantees
 * - One record per request, added when its answer is written (a watch: when the stream starts), in that order;
 *   requests to the fault endpoint (`/__rxkube/...`) are not recorded.
 * - Bounded: past `requestLogSize` records (an option of the cluster, default 10000) the oldest are dropped, and
 *   `dropped` counts them, so a count taken from `records()` is complete exactly when `dropped` is 0.
 * - `records()` returns a copy: later requests never change an array a test holds.
 */
export interface RequestLog {
  /** The records kept, oldest first. */
  records(): RequestRecord[];
  /** How many records the bound dropped since the log was created or last cleared. */
  readonly dropped: number;
  /** Forgets every record and resets `dropped`: what follows is what `records()` will show. */
  clear(): void;
  /** Each record as it is added (what `rxkube-test-cluster --log-requests` prints). */
  readonly records$: Observable<RequestRecord>;
}

/** The default bound of a request log. */
export const defaultRequestLogSize = 10000;

/** A request log, with the hook the request entry point records through. */
export interface RequestRecorder extends RequestLog {
  /**
   * Wraps `sink` so that the answer written to it records `request` (arrived at `nowMs`); the returned `gone` records
   * a request whose client left before any answer.
   */
  track(request: ApiRequest, url: URL, nowMs: number, sink: ResponseSink): { sink: ResponseSink; gone(): void };
}

/** Creates a request log that keeps at most `size` records (0 keeps none, and still counts them as dropped). */
export function requestLog(size = defaultRequestLogSize): RequestRecorder {
  const limit = Math.max(0, Math.floor(size));
  let kept: RequestRecord[] = [];
  /** Index of the oldest kept record: dropping moves it instead of shifting the array each time. */
  let start = 0;
  let dropped = 0;
  const added = new Subject<RequestRecord>();
  const add = (record: RequestRecord): void => {
    kept.push(record);
    if (kept.length - start > limit) {
      start++;
      dropped++;
      if (start > 1024 && start * 2 > kept.length) {
        kept = kept.slice(start);
        start = 0;
      }
    }
    added.next(record);
  };
  return {
    records: () => kept.slice(start),
    get dropped() {
      return dropped;
    },
    clear: () => {
      kept = [];
      start = 0;
      dropped = 0;
    },
    records$: added.asObservable(),
    track(request, url, nowMs, sink) {
      let done = false;
      const record = (code: number): void => {
        if (done) return;
        done = true;
        add(recordOf(request, url, nowMs, code));
      };
      return {
        sink: {
          respond: (status, headers, body, afterSent) => {
            if (!sink.started) record(status);
            sink.respond(status, headers, body, afterSent);
          },
          stream: (status, headers) => {
            record(status);
            return sink.stream(status, headers);
          },
          get started() {
            return sink.started;
          },
        },
        gone: () => record(0),
      };
    },
  };
}

/** The record of `request`, its path read like kube-apiserver's RequestInfo. */
function recordOf(request: ApiRequest, url: URL, nowMs: number, code: number): RequestRecord {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!Object.hasOwn(query, key)) query[key] = value;
  const target = resourceOf(url.pathname);
  const userAgent = request.headers['user-agent'];
  const method = request.method.toUpperCase();
  const watch = target !== undefined && (target.legacyWatch || query['watch'] === 'true' || query['watch'] === '1');
  return {
    time: new Date(nowMs).toISOString(),
    method,
    path: request.path,
    query,
    verb: verbOf(method, target, watch),
    ...(target === undefined
      ? {}
      : {
          group: target.group,
          version: target.version,
          resource: target.plural,
          ...(target.subresource !== undefined ? { subresource: target.subresource } : {}),
          // As RequestInfo: a namespace's own path is in that namespace.
          ...(target.namespace !== ''
            ? { namespace: target.namespace }
            : target.group === '' && target.plural === 'namespaces' && target.name !== undefined
              ? { namespace: target.name }
              : {}),
          ...(target.name !== undefined ? { name: target.name } : {}),
        }),
    ...(userAgent !== undefined ? { userAgent } : {}),
    code,
  };
}

type ResourceTarget = NonNullable<ReturnType<typeof parseResourcePath>>;

function resourceOf(pathname: string): ResourceTarget | undefined {
  let parts: string[];
  try {
    parts = pathname
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (parts[0] === 'api' && parts.length >= 3) return parseResourcePath('', parts[1]!, parts.slice(2));
  if (parts[0] === 'apis' && parts.length >= 4) return parseResourcePath(parts[1]!, parts[2]!, parts.slice(3));
  return undefined;
}

function verbOf(method: string, target: ResourceTarget | undefined, watch: boolean): RequestVerb {
  if (target === undefined) return method.toLowerCase();
  const named = target.name !== undefined;
  switch (method) {
    case 'GET':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}
