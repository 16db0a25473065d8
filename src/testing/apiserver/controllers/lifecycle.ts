/**
 * The controllers the in-memory server runs in-process because the real control plane would: the
 * apiextensions-apiserver (serving CRDs, cleaning up on delete) and, opt-in, the namespace controller.
 * @module
 */
import { crdCleanupFinalizer, crdResources, storageKey } from '../registry/index.js';
import { cloneJson, isPlainObject, type KubeObject } from '../machinery/index.js';
import { crdStorageKey, namespaceStorageKey, type ServerState, type StoredEvent } from '../storage/index.js';

/** A mutable copy of `obj` without `finalizer` (and without an empty `finalizers` list). */
export function withoutFinalizer(obj: KubeObject, finalizer: string): KubeObject {
  const next = cloneJson(obj) as KubeObject;
  next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
  return next;
}

/** Removes `obj` if it is being deleted and no finalizer holds it any more; else stores `obj`. */
export function storeOrRemove(state: ServerState, key: string, objKey: string, obj: KubeObject): void {
  if (obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).length === 0)
    state.store.remove(key, objKey);
  else state.store.put(key, obj);
}

/**
 * Keeps the registry in step with CRDs and performs CRD deletion cleanup.
 *
 * # Guarantees
 * - A CRD serves its resource from the commit that created it, and stops serving at the commit that deletes it.
 * - Deleting a CRD deletes every instance (DELETED events), then drops the cleanup finalizer, then the CRD goes.
 */
export function crdController(state: ServerState): (event: StoredEvent) => void {
  return (event) => {
    if (event.resource !== crdStorageKey) return;
    const crd = event.object;
    const name = crd.metadata.name ?? '';
    if (event.type === 'DELETED') {
      state.registry.delete(name);
      return;
    }
    state.registry.set(name, crdResources(crd));
    if (crd.metadata.deletionTimestamp === undefined || !(crd.metadata.finalizers ?? []).includes(crdCleanupFinalizer))
      return;
    // Runs after the current commit's listeners: the watchers see the CRD go Terminating before its instances go.
    state.runtime.defer(() => {
      const current = state.store.get(crdStorageKey, name);
      if (current === undefined || !(current.metadata.finalizers ?? []).includes(crdCleanupFinalizer)) return;
      for (const info of crdResources(current)) {
        const key = storageKey(info);
        for (const obj of [...state.store.values(key)]) {
          state.store.remove(
            key,
            obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : (obj.metadata.name ?? ''),
          );
        }
      }
      storeOrRemove(state, crdStorageKey, name, withoutFinalizer(current, crdCleanupFinalizer));
    });
  };
}

/**
 * Emulates kube-controller-manager's namespace controller (opt-in): deleting a namespace deletes its contents and
 * then the namespace itself.
 *
 * # Caveats
 * - Contents are removed directly, ignoring their finalizers; the real controller waits for them.
 */
export function namespaceController(state: ServerState): (event: StoredEvent) => void {
  return (event) => {
    if (
      event.resource !== namespaceStorageKey ||
      event.type === 'DELETED' ||
      event.object.metadata.deletionTimestamp === undefined
    )
      return;
    const name = event.object.metadata.name ?? '';
    state.runtime.defer(() => {
      const ns = state.store.get(namespaceStorageKey, name);
      if (ns === undefined || ns.metadata.deletionTimestamp === undefined) return;
      const spec = isPlainObject(ns['spec']) ? ns['spec'] : {};
      if (!Array.isArray(spec['finalizers']) || !spec['finalizers'].includes('kubernetes')) return;
      for (const info of state.registry.all()) {
        if (!info.namespaced) continue;
        const key = storageKey(info);
        for (const obj of [...state.store.values(key)]) {
          if (obj.metadata.namespace === name) state.store.remove(key, `${name}/${obj.metadata.name}`);
        }
      }
      const next = cloneJson(ns) as KubeObject;
      next['spec'] = { ...spec, finalizers: (spec['finalizers'] as unknown[]).filter((f) => f !== 'kubernetes') };
      const remaining = (next['spec'] as { finalizers: unknown[] }).finalizers;
      if (remaining.length === 0 && (next.metadata.finalizers ?? []).length === 0)
        state.store.remove(namespaceStorageKey, name);
      else state.store.put(namespaceStorageKey, next);
    });
  };
}
