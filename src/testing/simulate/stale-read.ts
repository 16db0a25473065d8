/**
 * A read of one object from a lagging apiserver: served from the past, as a list of its collection at an older
 * resourceVersion narrowed to its name, because a single-object GET cannot ask for an exact version.
 * @module
 */
import { map, type Observable } from 'rxjs';
import { apiErrorFromResponse, type TransportResponse } from '../../transport/index.js';
import type { VirtualCluster } from '../virtual/index.js';

/** Where one object lives: its collection's path and its name; `undefined` for a collection or a subresource. */
export function objectPath(path: string): { readonly collection: string; readonly name: string } | undefined {
  const [route] = path.split('?');
  const parts = route!.split('/').filter((part) => part !== '');
  // `/api/v1/…` or `/apis/<group>/<version>/…`
  const prefix = parts[0] === 'api' ? 2 : parts[0] === 'apis' ? 3 : -1;
  if (prefix < 0 || parts.length <= prefix) return undefined;
  const rest = parts.slice(prefix);
  // namespaces/<ns>/<resource>/<name>, or a cluster-scoped <resource>/<name> (a Namespace is namespaces/<name>).
  const named = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
  if (named.length !== 2) return undefined;
  const base = parts.slice(0, prefix + (rest.length - named.length)).join('/');
  return { collection: `/${base}/${named[0]}`, name: named[1]! };
}

/**
 * The object at `path` as the cluster held it at `resourceVersion`: a 200 with the object (its `apiVersion` and
 * `kind` from the list's), or the 404 NotFound the server answers for an object that did not exist then.
 */
export function readAt(
  cluster: VirtualCluster,
  target: { readonly collection: string; readonly name: string },
  resourceVersion: string,
): Observable<TransportResponse> {
  const query = {
    fieldSelector: `metadata.name=${target.name}`,
    resourceVersion,
    resourceVersionMatch: 'Exact',
  };
  return cluster.get(target.collection, query).pipe(
    map((list) => {
      const { apiVersion, kind, items } = list as { apiVersion?: string; kind?: string; items?: unknown[] };
      const item = items?.[0] as Record<string, unknown> | undefined;
      if (item === undefined) {
        const resource = target.collection.slice(target.collection.lastIndexOf('/') + 1);
        const message = `${resource} "${target.name}" not found`;
        const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'NotFound', code: 404 };
        throw apiErrorFromResponse({ statusCode: 404, statusMessage: 'Not Found', body: JSON.stringify(status) });
      }
      const typed = { apiVersion, kind: kind?.replace(/List$/, ''), ...item };
      return { status: 200, body: typed, headers: { 'content-type': 'application/json' }, warnings: [] };
    }),
  );
}
