/**
 * URL paths for collections, with and without a namespace.
 */
import type { ResolvedResource } from './builtin.js';

/**
 * The collection path used for list and watch: `/api/v1/namespaces/ns/pods`, `/apis/apps/v1/deployments`, ...
 *
 * # Guarantees
 * - No namespace on a namespaced resource means all namespaces.
 * - A namespace on a cluster-scoped resource throws a clear error rather than building a URL the server would 404.
 * - Path segments are URI-encoded.
 */
export function collectionPath(resource: ResolvedResource, namespace?: string): string {
  const root = groupVersionPath(resource.group, resource.version);
  if (namespace === undefined || namespace === '') return `${root}/${resource.plural}`;
  if (!resource.namespaced) {
    throw new Error(`${resource.kind} is cluster-scoped: namespace "${namespace}" cannot be used to list it`);
  }
  return `${root}/namespaces/${encodeURIComponent(namespace)}/${resource.plural}`;
}

/** The discovery path of a group/version: `/api/v1` for core, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group === ''
    ? `/api/${encodeURIComponent(version)}`
    : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`;
}
