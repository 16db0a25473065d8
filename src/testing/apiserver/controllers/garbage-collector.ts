/**
 * Opt-in emulation of kube-controller-manager's garbage collector: ownerReference-driven deletion with the
 * Background, Foreground and Orphan policies.
 * @module
 */
import { cloneJson, isPlainObject, type KubeObject, objectKey, timestamp } from '../machinery/index.js';
import { storageKey } from '../registry/index.js';
import { storeOrRemove, withoutFinalizer } from './lifecycle.js';
import type { ServerState, StoredEvent } from '../storage/index.js';

interface Located {
  readonly resource: string;
  readonly key: string;
  readonly object: KubeObject;
}

function ownerUids(obj: KubeObject): string[] {
  const refs = Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
  return refs.filter(isPlainObject).map((r) => String(r['uid'] ?? ''));
}

function everything(state: ServerState): Located[] {
  const out: Located[] = [];
  const seen = new Set<string>();
  for (const info of state.registry.all()) {
    const resource = storageKey(info);
    if (seen.has(resource)) continue;
    seen.add(resource);
    for (const object of state.store.values(resource)) {
      out.push({ resource, key: objectKey(object.metadata.namespace ?? '', object.metadata.name ?? ''), object });
    }
  }
  return out;
}

/** Deletes like a Background DELETE without grace: finalizers hold the object, otherwise it goes. */
function deleteDependent(state: ServerState, item: Located): void {
  const { object } = item;
  if (object.metadata.deletionTimestamp !== undefined) return;
  if ((object.metadata.finalizers ?? []).length > 0) {
    const next = cloneJson(object) as KubeObject;
    next.metadata.deletionTimestamp = timestamp(state.runtime.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    state.store.put(item.resource, next);
  } else {
    state.store.remove(item.resource, item.key);
  }
}

function collect(state: ServerState): void {
  const all = everything(state);
  const live = new Map(all.map((i) => [i.object.metadata.uid ?? '', i]));
  for (const item of all) {
    const owners = ownerUids(item.object);
    if (owners.length === 0) continue;
    const present = owners.filter((uid) => live.has(uid));
    if (present.length === 0) {
      deleteDependent(state, item);
    } else if (present.length < owners.length) {
      const next = cloneJson(item.object) as KubeObject;
      next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter(
        (r) => isPlainObject(r) && live.has(String(r['uid'])),
      );
      state.store.put(item.resource, next);
    }
  }
  for (const owner of all) {
    const meta = owner.object.metadata;
    if (meta.deletionTimestamp === undefined || state.store.get(owner.resource, owner.key) !== owner.object) continue;
    const uid = meta.uid ?? '';
    const dependents = all.filter(
      (d) => ownerUids(d.object).includes(uid) && state.store.get(d.resource, d.key) !== undefined,
    );
    const finalizers = meta.finalizers ?? [];
    if (finalizers.includes('orphan')) {
      for (const d of dependents) {
        const next = cloneJson(state.store.get(d.resource, d.key)!) as KubeObject;
        next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter(
          (r) => !(isPlainObject(r) && r['uid'] === uid),
        );
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        state.store.put(d.resource, next);
      }
      storeOrRemove(state, owner.resource, owner.key, withoutFinalizer(owner.object, 'orphan'));
    } else if (finalizers.includes('foregroundDeletion')) {
      for (const d of dependents) deleteDependent(state, { ...d, object: state.store.get(d.resource, d.key)! });
      const remaining = dependents.filter((d) => state.store.get(d.resource, d.key) !== undefined);
      if (remaining.length === 0)
        storeOrRemove(state, owner.resource, owner.key, withoutFinalizer(owner.object, 'foregroundDeletion'));
    }
  }
}

/**
 * The garbage collector (opt-in via `ownerGC`).
 *
 * # Guarantees
 * - Background: once every owner of an object is gone, the object is deleted.
 * - Foreground: an owner holding `foregroundDeletion` loses it once its dependents are gone.
 * - Orphan: an owner holding `orphan` has its references removed from dependents, then loses the finalizer.
 *
 * # Caveats
 * - Runs a full scan after each relevant commit (O(objects)); meant for tests, not for 100k-object runs.
 * - Deletes dependents without grace periods and ignores `blockOwnerDeletion`.
 */
export function ownerGarbageCollector(state: ServerState): (event: StoredEvent) => void {
  let scheduled = false;
  return (event) => {
    const relevant =
      event.type === 'DELETED' ||
      event.object.metadata.deletionTimestamp !== undefined ||
      (event.type === 'ADDED' && ownerUids(event.object).length > 0);
    if (!relevant || scheduled) return;
    scheduled = true;
    state.runtime.defer(() => {
      scheduled = false;
      collect(state);
    });
  };
}
