/**
 * The `finalize` subresource of namespaces, as the namespace controller and `kubectl` use it.
 * @module
 */
import { cloneJson, isPlainObject, type KubeObject } from '../machinery/index.js';
import { namespaceStorageKey, type ServerState } from '../storage/index.js';

/**
 * PUT `/api/v1/namespaces/<name>/finalize`: replaces `spec.finalizers`; a terminating namespace with none left
 * (and no metadata finalizers) is removed, as the real namespace finalize REST does.
 */
export function finalizeNamespace(state: ServerState, ns: KubeObject, body: unknown): KubeObject {
  const spec = isPlainObject(body) && isPlainObject(body['spec']) ? body['spec'] : {};
  const finalizers = Array.isArray(spec['finalizers'])
    ? spec['finalizers'].filter((f): f is string => typeof f === 'string')
    : [];
  const next = cloneJson(ns) as KubeObject;
  next['spec'] = { ...(isPlainObject(ns['spec']) ? ns['spec'] : {}), finalizers };
  const name = ns.metadata.name ?? '';
  if (
    next.metadata.deletionTimestamp !== undefined &&
    finalizers.length === 0 &&
    (next.metadata.finalizers ?? []).length === 0
  ) {
    return state.store.remove(namespaceStorageKey, name) ?? ns;
  }
  return state.store.put(namespaceStorageKey, next);
}
