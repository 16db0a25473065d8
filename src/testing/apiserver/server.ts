/**
 * The request entry point: authentication, the admin (fault) endpoint, injected failures and latency, health,
 * discovery, and dispatch to resource routing. Every exception becomes a Status; nothing crashes the process.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { groupInfo, groupList, coreVersions, resourceList, serverVersion } from './discovery.js';
import type { FaultState, Faults } from './faults.js';
import { decodeOptionalJson, isApiError, readBody, sendError, sendJson, sendText } from './http.js';
import { openApiGroupVersion, openApiRoot } from './openapi.js';
import { parseResourcePath, serveResource } from './router.js';
import { badRequest, internalError, methodNotAllowed, unauthorized, unknownResource } from './status.js';
import type { ServerState } from './state.js';

/** What the request handler needs besides the shared state. */
export interface HandlerConfig {
  readonly state: ServerState;
  readonly faultState: FaultState;
  readonly faults: Faults;
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  serverAddress(): string;
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  return req.headers.authorization === `Bearer ${token}`;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function serveAdmin(config: HandlerConfig, req: IncomingMessage, res: ServerResponse, parts: string[]): Promise<void> {
  if (parts[1] === 'resourceVersion' && parts.length === 2 && req.method === 'GET') {
    sendJson(res, 200, { resourceVersion: String(config.state.store.resourceVersion), compacted: String(config.state.store.compacted) });
    return;
  }
  if (parts[1] !== 'faults' || parts.length !== 3) throw unknownResource();
  if (req.method !== 'POST') throw methodNotAllowed();
  const body = decodeOptionalJson(await readBody(req, config.maxBodyBytes)) ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('fault options must be a JSON object');
  const o = body as Record<string, unknown>;
  const f = config.faults;
  const num = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw badRequest(`${name} must be a non-negative number`);
    return v;
  };
  let result: unknown = null;
  switch (parts[2]) {
    case 'dropWatches':
      if (o['mode'] !== undefined && o['mode'] !== 'clean' && o['mode'] !== 'abrupt') throw badRequest('mode must be "clean" or "abrupt"');
      result = f.dropWatches({ mode: (o['mode'] as 'clean' | 'abrupt' | undefined) ?? 'clean' });
      break;
    case 'compact':
      f.compact(o['toResourceVersion'] === undefined ? undefined : num(o['toResourceVersion'], 'toResourceVersion'));
      break;
    case 'failNext': {
      const path = typeof o['pathRegex'] === 'string' ? safeRegExp(o['pathRegex']) : typeof o['path'] === 'string' ? o['path'] : undefined;
      try {
        f.failNext({
          status: num(o['status'], 'status'),
          ...(o['count'] !== undefined ? { count: num(o['count'], 'count') } : {}),
          ...(typeof o['method'] === 'string' ? { method: o['method'] } : {}),
          ...(path !== undefined ? { path } : {}),
          ...(o['retryAfterSeconds'] !== undefined ? { retryAfterSeconds: num(o['retryAfterSeconds'], 'retryAfterSeconds') } : {}),
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
      if (o['kind'] !== undefined && o['kind'] !== 'malformed' && o['kind'] !== 'truncated') throw badRequest('kind must be "malformed" or "truncated"');
      result = f.injectMalformedLine({ kind: (o['kind'] as 'malformed' | 'truncated' | undefined) ?? 'malformed' });
      break;
    case 'restart':
      sendJson(res, 200, { fault: 'restart', result: null }, { Connection: 'close' });
      res.on('finish', () => f.restart());
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

async function route(config: HandlerConfig, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  let parts: string[];
  try {
    parts = url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  } catch {
    throw badRequest(`malformed URL path: ${url.pathname}`);
  }
  const { state } = config;
  const method = req.method ?? 'GET';
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
    const doc = rest[0] === 'api' && rest.length === 2 ? openApiGroupVersion(state.registry, '', rest[1]!)
      : rest[0] === 'apis' && rest.length === 3 ? openApiGroupVersion(state.registry, rest[1]!, rest[2]!) : undefined;
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
    if (parts.length === 2) {
      const info = groupInfo(state.registry, group);
      if (info === undefined) throw unknownResource();
      return sendJson(res, 200, info);
    }
    const version = parts[2]!;
    if (!state.registry.servesGroupVersion(group, version)) throw unknownResource();
    if (parts.length === 3) return sendJson(res, 200, resourceList(state.registry, group, version));
    const path = parseResourcePath(group, version, parts.slice(3));
    if (path === undefined) throw unknownResource();
    return serveResource(state, req, res, path, url.searchParams, config.maxBodyBytes);
  }
  if (method !== 'GET') throw methodNotAllowed();
  throw unknownResource();
}

/**
 * Builds the `(req, res)` handler for node:http / node:https.
 *
 * # Guarantees
 * - Without the configured bearer token every request (admin endpoint included) is a 401 Status.
 * - Any exception becomes a Status (ApiError as is, anything else a 500 InternalError).
 */
export function createHandler(config: HandlerConfig): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      try {
        if (!authorized(req, config.token)) throw unauthorized();
        const url = new URL(req.url ?? '/', 'http://in-memory');
        const parts = url.pathname.split('/').filter((p) => p !== '');
        if (parts[0] === '__rxkube') {
          await serveAdmin(config, req, res, parts);
          return;
        }
        const failure = config.faultState.take(req.method ?? 'GET', `${url.pathname}${url.search}`);
        if (config.faultState.latencyMs > 0) await delay(config.faultState.latencyMs);
        if (failure !== undefined) throw failure;
        await route(config, req, res, url);
      } catch (error) {
        const apiError = isApiError(error) ? error : internalError(error instanceof Error ? error.message : String(error));
        const closing: Record<string, string> = apiError.status === 413 ? { Connection: 'close' } : {};
        sendError(res, apiError, closing);
      }
    })();
  };
}
