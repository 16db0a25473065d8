/**
 * The server's state (objects, served resources, time and chance) that handlers, the write path and the built-in
 * controllers share, and the request target shape the router produces.
 * @module
 */
import type { ObjectStore } from './store.js';
import { builtinResources, type ResourceInfo, type ResourceRegistry, storageKey } from '../registry/index.js';
import { type KubeObject, notFound, objectKey, type ServerRuntime } from '../machinery/index.js';

/** Everything a handler, the write path or a built-in controller may touch (the router adds the open watches). */
export interface ServerState {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  /** Time, timers and randomness: real for the HTTP server, seeded and virtual for the virtual cluster. */
  readonly runtime: ServerRuntime;
}

/** A resolved API request: resource, the URL's version, namespace, object name and subresource. */
export interface RequestTarget {
  readonly resource: ResourceInfo;
  readonly version: string;
  /** '' for cluster-scoped resources and all-namespace collections. */
  readonly namespace: string;
  readonly name?: string;
  readonly subresource?: 'status' | 'finalize' | 'scale';
}

/** The built-in Namespace resource (namespaces are looked up by every namespaced write). */
export const namespaceResource: ResourceInfo = builtinResources.find(
  (r) => r.group === '' && r.plural === 'namespaces',
)!;

/** Storage key of the CRD resource. */
export const crdStorageKey = 'apiextensions.k8s.io/customresourcedefinitions';

/** Storage key of namespaces. */
export const namespaceStorageKey = storageKey(namespaceResource);

/** The stored object a target names, or a 404 NotFound with the real message. */
export function mustGet(state: ServerState, target: RequestTarget): KubeObject {
  const name = target.name ?? '';
  const obj = state.store.get(
    storageKey(target.resource),
    objectKey(target.resource.namespaced ? target.namespace : '', name),
  );
  if (obj === undefined) throw notFound(target.resource, name);
  return obj;
}
