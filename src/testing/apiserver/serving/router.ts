/**
 * Resource routing: turns `/api/v1/...` and `/apis/<g>/<v>/...` paths plus the method into handler calls.
 * @module
 */
import {
  boolParam,
  create,
  deleteCollection,
  deleteObject,
  deleteOptions,
  finalizeNamespace,
  isDryRun,
  listObjects,
  patch,
  scalableKinds,
  serveScale,
  update,
  type WatchHub,
} from '../handlers/index.js';
import {
  type ApiRequest,
  keepingWarnings,
  methodNotAllowed,
  notFound,
  pageNotFound,
  type ResponseSink,
  unknownResource,
  warningHeaders,
  withWarnings,
} from '../machinery/index.js';
import { decodeObjectBody, decodeOptionalJson, requestBody, sendJson, sendObject } from './http.js';
import { negotiate, represent, toTable } from '../representation/index.js';
import { groupVersion, hasStatus, isBuiltinGroup } from '../registry/index.js';
import { mustGet, type RequestTarget, type ServerState } from '../storage/index.js';

/** The server state plus every open watch: what serving a request may touch. */
export interface ServingState extends ServerState {
  readonly hub: WatchHub;
}

/** Parsed resource path, before the resource is looked up. */
interface ResourcePath {
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly plural: string;
  readonly name?: string;
  readonly subresource?: string;
  readonly legacyWatch: boolean;
}

/** Splits the part after `/api/v1` or `/apis/g/v`; undefined when the shape names no resource. */
export function parseResourcePath(group: string, version: string, rest: string[]): ResourcePath | undefined {
  let parts = rest;
  let legacyWatch = false;
  if (parts[0] === 'watch') {
    legacyWatch = true;
    parts = parts.slice(1);
  }
  let namespace = '';
  const namespaceSub =
    group === '' &&
    parts[0] === 'namespaces' &&
    parts.length === 3 &&
    (parts[2] === 'status' || parts[2] === 'finalize');
  if (parts[0] === 'namespaces' && parts.length >= 3 && !namespaceSub) {
    namespace = parts[1]!;
    parts = parts.slice(2);
  }
  if (parts.length < 1 || parts.some((p) => p === '')) return undefined;
  // Anything past `<name>/` is the subresource as asked for (`y/z` included), for resolve() to refuse as its group does.
  const [plural, name] = parts as [string, string?];
  const subresource = parts.length > 2 ? parts.slice(2).join('/') : undefined;
  return {
    group,
    version,
    namespace,
    plural,
    legacyWatch,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/**
 * The resource, scope and subresource a path names. Refusals are worded as kube-apiserver's handlers word them: the
 * built-in groups' with a Status; apiextensions' with the mux's text/plain 404 for a resource or scope no CRD
 * serves, and with `<plural>.<group> "<name>" not found` for a subresource the CRD does not serve.
 */
function resolve(state: ServerState, path: ResourcePath): RequestTarget {
  const resource = state.registry.find(path.group, path.version, path.plural);
  const wrongPath = (): Error =>
    (resource?.custom ?? !isBuiltinGroup(path.group)) ? pageNotFound() : unknownResource();
  if (resource === undefined) throw wrongPath();
  if (path.namespace !== '' && !resource.namespaced) throw wrongPath();
  if (resource.custom && resource.namespaced && path.namespace === '' && path.name !== undefined) throw wrongPath();
  let subresource: RequestTarget['subresource'];
  if (path.subresource !== undefined) {
    if (path.subresource === 'status' && hasStatus(resource, path.version)) subresource = 'status';
    else if (path.subresource === 'finalize' && !resource.custom && resource.kind === 'Namespace')
      subresource = 'finalize';
    else if (path.subresource === 'scale' && !resource.custom && scalableKinds.has(resource.kind))
      subresource = 'scale';
    else throw resource.custom ? notFound(resource, path.name ?? '') : unknownResource();
  }
  return {
    resource,
    version: path.version,
    namespace: path.namespace,
    ...(path.name !== undefined ? { name: path.name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/**
 * Serves one resource request. Throws `ApiError`s for the caller to turn into Status responses.
 *
 * # Guarantees
 * - The body is fully read and validated before any state changes.
 */
export function serveResource(
  state: ServingState,
  req: ApiRequest,
  res: ResponseSink,
  path: ResourcePath,
  query: URLSearchParams,
  maxBodyBytes: number,
): void {
  const target = resolve(state, path);
  const deprecation = target.resource.deprecations?.[path.version];
  if (deprecation === undefined) {
    serveTarget(state, req, res, path, target, query, maxBodyBytes);
    return;
  }
  // apiextensions-apiserver adds the warning before it handles the request, so every answer carries it, refusals too.
  keepingWarnings([deprecation], () =>
    serveTarget(state, req, warningOnEveryAnswer(res, deprecation), path, target, query, maxBodyBytes),
  );
}

/** A sink that adds the `text` warning to whatever answer goes out through it, whole or streamed. */
function warningOnEveryAnswer(res: ResponseSink, text: string): ResponseSink {
  return {
    respond: (status, headers, body, afterSent) => res.respond(status, withWarnings(headers, [text]), body, afterSent),
    stream: (status, headers) => res.stream(status, withWarnings(headers, [text])),
    get started() {
      return res.started;
    },
  };
}

function serveTarget(
  state: ServingState,
  req: ApiRequest,
  res: ResponseSink,
  path: ResourcePath,
  target: RequestTarget,
  query: URLSearchParams,
  maxBodyBytes: number,
): void {
  const method = req.method.toUpperCase();
  const accept = req.headers.accept;
  const needsBody = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
  const bytes = needsBody ? requestBody(req, maxBodyBytes) : Buffer.alloc(0);
  // Text only where a handler reads text: a create or update decodes the bytes itself (protobuf is binary).
  const raw = (): string => bytes.toString('utf8');
  const decode = () =>
    decodeObjectBody(bytes, req.headers['content-type'], target.resource.kind, target.resource.custom);
  const watch = path.legacyWatch || boolParam(query, 'watch');

  if (target.name === undefined) {
    switch (method) {
      case 'GET':
        if (watch) {
          state.hub.serve(res, target, query, negotiate(accept, 'watch'));
          return;
        }
        sendObject(
          res,
          200,
          listObjects(state.runtime.now(), state.store, target, query, negotiate(accept, 'list')),
          accept,
        );
        return;
      case 'POST': {
        const reply = create(state, target, decode(), query, req.headers['user-agent']);
        sendObject(res, reply.code, reply.body, accept, warningHeaders(reply.warnings));
        return;
      }
      case 'DELETE': {
        const reply = deleteCollection(state, target, decodeOptionalJson(raw()), query);
        sendJson(res, reply.code, reply.body);
        return;
      }
      default:
        throw methodNotAllowed();
    }
  }
  if (target.resource.namespaced && target.namespace === '') throw unknownResource();
  if (method === 'GET' && watch && target.subresource === undefined) {
    const selector = [`metadata.name=${target.name}`, query.get('fieldSelector') ?? '']
      .filter((s) => s !== '')
      .join(',');
    const q = new URLSearchParams(query);
    q.set('fieldSelector', selector);
    state.hub.serve(
      res,
      { resource: target.resource, version: target.version, namespace: target.namespace },
      q,
      negotiate(accept, 'watch'),
    );
    return;
  }
  const apiVersion = groupVersion(target.resource.group, target.version);
  if (target.subresource === 'scale') {
    if (method !== 'GET' && method !== 'PUT' && method !== 'PATCH') throw methodNotAllowed();
    const reply = serveScale(state, target, method, raw(), req.headers['content-type'] ?? '', query);
    sendJson(res, reply.code, reply.body);
    return;
  }
  switch (method) {
    case 'GET': {
      const obj = mustGet(state, target);
      const representation = negotiate(accept, 'get');
      const body =
        representation === 'table'
          ? toTable(
              state.runtime.now(),
              [obj],
              { resourceVersion: obj.metadata.resourceVersion },
              true,
              target.resource.kind,
              target.resource.custom,
            )
          : represent(obj, apiVersion, representation);
      sendObject(res, 200, body, accept);
      return;
    }
    case 'PUT': {
      const body = decode();
      if (target.subresource === 'finalize') {
        const ns = mustGet(state, target);
        isDryRun(query);
        sendJson(res, 200, finalizeNamespace(state, ns, body));
        return;
      }
      const reply = update(state, target, body, query, req.headers['user-agent']);
      sendObject(res, reply.code, reply.body, accept, warningHeaders(reply.warnings));
      return;
    }
    case 'PATCH': {
      if (target.subresource === 'finalize') throw methodNotAllowed();
      const reply = patch(state, target, req.headers['content-type'] ?? '', raw(), query, req.headers['user-agent']);
      sendObject(res, reply.code, reply.body, accept, warningHeaders(reply.warnings));
      return;
    }
    case 'DELETE': {
      if (target.subresource !== undefined) throw methodNotAllowed();
      const reply = deleteObject(state, target, deleteOptions(decodeOptionalJson(raw()), query), isDryRun(query));
      sendJson(res, reply.code, reply.body);
      return;
    }
    default:
      throw methodNotAllowed();
  }
}
