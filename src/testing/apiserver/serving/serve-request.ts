/**
 * The request entry point of the transport-agnostic core: authentication, the admin (fault) endpoint, injected
 * failures and latency, health, discovery, and dispatch to resource routing. Every exception becomes a Status;
 * nothing crashes the process. The node:http adapter and the virtual transport both call {@link serveRequest}.
 * @module
 */
import {
  type ApiRequest,
  badRequest,
  internalError,
  methodNotAllowed,
  PageNotFound,
  pageNotFound,
  type ResponseSink,
  unauthorized,
  unknownResource,
} from '../machinery/index.js';
import {
  coreVersions,
  groupInfo,
  groupList,
  openApiGroupVersion,
  openApiRoot,
  resourceList,
  serverVersion,
} from '../handlers/index.js';
import type { FaultState, Faults } from './faults.js';
import { decodeOptionalJson, isApiError, requestBody, sendError, sendJson, sendText } from './http.js';
import { parseResourcePath, serveResource, type ServingState } from './router.js';
import type { RequestRecorder } from './request-log.js';
import { isBuiltinGroup } from '../registry/index.js';

/** What the request handler needs besides the shared state. */
export interface HandlerConfig {
  readonly state: ServingState;
  readonly faultState: FaultState;
  readonly faults: Faults;
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  /** Where every request but the fault endpoint's is recorded. */
  readonly requestLog: RequestRecorder;
  serverAddress(): string;
}

function authorized(req: ApiRequest, token: string | undefined): boolean {
  if (token === undefined) return true;
  return req.headers['authorization'] === `Bearer ${token}`;
}

function serveAdmin(config: HandlerConfig, req: ApiRequest, res: ResponseSink, parts: string[]): void {
  if (parts[1] === 'resourceVersion' && parts.length === 2 && req.method === 'GET') {
    sendJson(res, 200, {
      resourceVersion: String(config.state.store.resourceVersion),
      compacted: String(config.state.store.compacted),
    });
    return;
  }
  if (parts[1] !== 'faults' || parts.length !== 3) throw unknownResource();
  if (req.method !== 'POST') throw methodNotAllowed();
  const body = decodeOptionalJson(requestBody(req, config.maxBodyBytes).toString('utf8')) ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('fault options must be a JSON object');
  const o = body as Record<string, unknown>;
  const f = config.faults;
  const num = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw badRequest(`${name} must be a non-negative number`);
    return v;
  };
  let result: unknown = null;
  switch (parts[2]) {
    case 'dropWatches':
      if (o['mode'] !== undefined && o['mode'] !== 'clean' && o['mode'] !== 'abrupt')
        throw badRequest('mode must be "clean" or "abrupt"');
      result = f.dropWatches({ mode: (o['mode'] as 'clean' | 'abrupt' | undefined) ?? 'clean' });
      break;
    case 'compact':
      f.compact(o['toResourceVersion'] === undefined ? undefined : num(o['toResourceVersion'], 'toResourceVersion'));
      break;
    case 'failNext': {
      const path =
        typeof o['pathRegex'] === 'string'
          ? safeRegExp(o['pathRegex'])
          : typeof o['path'] === 'string'
            ? o['path']
            : undefined;
      try {
        f.failNext({
          status: num(o['status'], 'status'),
          ...(o['count'] !== undefined ? { count: num(o['count'], 'count') } : {}),
          ...(typeof o['method'] === 'string' ? { method: o['method'] } : {}),
          ...(path !== undefined ? { path } : {}),
          ...(o['retryAfterSeconds'] !== undefined
            ? { retryAfterSeconds: num(o['retryAfterSeconds'], 'retryAfterSeconds') }
            : {}),
          ...(typeof o['message'] === 'string' ? { message: o['message'] } : {}),
        });
      } catch (error) {
        if (error instanceof RangeError) throw badRequest(error.message);
        throw error;
      }
      break;
    }
    case 'latency':
      f.latency(num(o['ms'], 'ms'));
      break;
    case 'stallWatches':
      f.stallWatches(num(o['ms'], 'ms'));
      break;
    case 'injectMalformedLine':
      if (o['kind'] !== undefined && o['kind'] !== 'malformed' && o['kind'] !== 'truncated')
        throw badRequest('kind must be "malformed" or "truncated"');
      result = f.injectMalformedLine({ kind: (o['kind'] as 'malformed' | 'truncated' | undefined) ?? 'malformed' });
      break;
    case 'conflictNext': {
      if (typeof o['path'] !== 'string' || !o['path'].startsWith('/'))
        throw badRequest('path must be the object path, e.g. /api/v1/namespaces/default/configmaps/a');
      f.conflictNext({ path: o['path'], ...(o['count'] !== undefined ? { count: num(o['count'], 'count') } : {}) });
      break;
    }
    case 'failWrites':
      try {
        f.failWrites({
          status: num(o['status'], 'status'),
          ...(o['count'] !== undefined ? { count: num(o['count'], 'count') } : {}),
          ...(o['retryAfterSeconds'] !== undefined
            ? { retryAfterSeconds: num(o['retryAfterSeconds'], 'retryAfterSeconds') }
            : {}),
        });
      } catch (error) {
        if (error instanceof RangeError) throw badRequest(error.message);
        throw error;
      }
      break;
    case 'restart':
      sendJson(res, 200, { fault: 'restart', result: null }, { Connection: 'close' }, () => f.restart());
      return;
    case 'clear':
      f.clear();
      break;
    default:
      throw unknownResource();
  }
  sendJson(res, 200, { fault: parts[2], result });
}

function safeRegExp(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw badRequest(`pathRegex is not a valid regular expression: ${(error as Error).message}`);
  }
}

function route(config: HandlerConfig, req: ApiRequest, res: ResponseSink, url: URL): void {
  let parts: string[];
  try {
    parts = url.pathname
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
  } catch {
    throw badRequest(`malformed URL path: ${url.pathname}`);
  }
  const { state } = config;
  const method = req.method;
  const first = parts[0] ?? '';
  if (first === 'healthz' || first === 'livez' || first === 'readyz') {
    sendText(res, 200, 'ok');
    return;
  }
  if (first === 'version' && parts.length === 1) {
    sendJson(res, 200, serverVersion);
    return;
  }
  if (first === 'openapi' && parts[1] === 'v3' && method === 'GET') {
    if (parts.length === 2) return sendJson(res, 200, openApiRoot(state.registry));
    const rest = parts.slice(2);
    const doc =
      rest[0] === 'api' && rest.length === 2
        ? openApiGroupVersion(state.registry, '', rest[1]!)
        : rest[0] === 'apis' && rest.length === 3
          ? openApiGroupVersion(state.registry, rest[1]!, rest[2]!)
          : undefined;
    if (doc === undefined) throw unknownResource();
    return sendJson(res, 200, doc);
  }
  if (first === 'api') {
    if (parts.length === 1) return sendJson(res, 200, coreVersions(config.serverAddress()));
    if (parts[1] !== 'v1') throw unknownResource();
    if (parts.length === 2) return sendJson(res, 200, resourceList(state.registry, '', 'v1'));
    const path = parseResourcePath('', 'v1', parts.slice(2));
    if (path === undefined) throw unknownResource();
    return serveResource(state, req, res, path, url.searchParams, config.maxBodyBytes);
  }
  if (first === 'apis') {
    if (parts.length === 1) return sendJson(res, 200, groupList(state.registry));
    const group = parts[1]!;
    // kube-apiserver's built-in groups answer with a Status; unknown groups and the groups of custom resources fall
    // through to its mux: text/plain `404 page not found`.
    const notServed = (): Error => (isBuiltinGroup(group) ? unknownResource() : pageNotFound());
    if (parts.length === 2) {
      const info = groupInfo(state.registry, group);
      if (info === undefined) throw notServed();
      return sendJson(res, 200, info);
    }
    const version = parts[2]!;
    if (!state.registry.servesGroupVersion(group, version)) throw notServed();
    if (parts.length === 3) return sendJson(res, 200, resourceList(state.registry, group, version));
    const path = parseResourcePath(group, version, parts.slice(3));
    if (path === undefined) throw notServed();
    return serveResource(state, req, res, path, url.searchParams, config.maxBodyBytes);
  }
  // The version handler owns its prefix (a Status); any other unknown path is the mux's text/plain 404.
  if (first !== 'version') throw pageNotFound();
  if (method !== 'GET') throw methodNotAllowed();
  throw unknownResource();
}

/**
 * Serves one request of any adapter: the whole answer goes to `res` (now, or after the injected latency and the
 * request's own `latencyMs` on the server's scheduler). Returns a function that cancels a pending answer (the client
 * went away).
 *
 * # Guarantees
 * - Without the configured bearer token every request (admin endpoint included) is a 401 Status.
 * - Every request but the fault endpoint's is recorded in the request log, with the status of its answer.
 * - Any exception becomes a Status (ApiError as is, anything else a 500 InternalError); a 413 closes the connection.
 *   The one exception is a path no API serves: the text/plain `404 page not found` of kube-apiserver's mux.
 * - Synchronous apart from latency: everything else happens inside this call, so in virtual time a request
 *   is served at the virtual instant it arrives.
 */
export function serveRequest(config: HandlerConfig, req: ApiRequest, sink: ResponseSink): () => void {
  let res = sink;
  /** Records a request whose client left before its (delayed) answer; the answer itself records the others. */
  let gone = (): void => undefined;
  const fail = (error: unknown): void => {
    if (error instanceof PageNotFound) {
      sendText(res, error.status, error.text, { 'Cache-Control': 'no-cache, private' });
      return;
    }
    const apiError = isApiError(error) ? error : internalError(error instanceof Error ? error.message : String(error));
    const closing: Record<string, string> = apiError.status === 413 ? { Connection: 'close' } : {};
    sendError(res, apiError, closing);
  };
  try {
    const url = new URL(`${req.path}${req.search}`, 'http://in-memory');
    const parts = url.pathname.split('/').filter((p) => p !== '');
    const admin = parts[0] === '__rxkube';
    if (!admin) ({ sink: res, gone } = config.requestLog.track(req, url, config.state.runtime.now(), sink));
    if (!authorized(req, config.token)) throw unauthorized();
    if (admin) {
      serveAdmin(config, req, res, parts);
      return () => undefined;
    }
    const failure = config.faultState.take(req.method, `${url.pathname}${url.search}`);
    const answer = (): void => {
      try {
        if (failure !== undefined) throw failure;
        route(config, req, res, url);
      } catch (error) {
        fail(error);
      }
    };
    const latency = config.faultState.latencyMs + Math.max(0, req.latencyMs ?? 0);
    if (latency > 0) {
      const cancel = config.state.runtime.after(latency, answer);
      return () => {
        cancel();
        gone();
      };
    }
    answer();
  } catch (error) {
    fail(error);
  }
  return () => undefined;
}
