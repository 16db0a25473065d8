/**
 * The end of every update: a prepared object stored (or, under `dryRun`, only answered), and the answer a write
 * gives. The HTTP writes, server-side apply, the scale subresource and `update` share it.
 * @module
 */
import { atVersion } from '../representation/index.js';
import { isPlainObject, type KubeObject, objectKey } from '../machinery/index.js';
import { groupVersion, isNoop, prepareUpdate, storageKey } from '../registry/index.js';
import type { RequestTarget, ServerState } from '../storage/index.js';

/** A handler's answer: HTTP code and JSON body. */
export interface Reply {
  readonly code: number;
  readonly body: unknown;
  /** Warnings for the client (`Warning: 299 - "…"`), e.g. the unknown fields `fieldValidation=Warn` dropped. */
  readonly warnings?: readonly string[];
}

/** The stored object as served at the request's version. */
export function present(target: RequestTarget, obj: KubeObject): KubeObject {
  return atVersion(obj, groupVersion(target.resource.group, target.version));
}

/**
 * Stores a prepared update: no write when nothing changed, deletion when the last finalizer of an object being
 * deleted goes away (only a DELETED event, like the generic registry), a MODIFIED otherwise.
 */
export function commitUpdate(
  state: ServerState,
  target: RequestTarget,
  old: KubeObject,
  next: KubeObject,
  dryRun: boolean,
): Reply {
  const key = storageKey(target.resource);
  const meta = next.metadata;
  const spec = next['spec'];
  const nsHeld =
    !target.resource.custom &&
    target.resource.kind === 'Namespace' &&
    isPlainObject(spec) &&
    Array.isArray(spec['finalizers']) &&
    spec['finalizers'].length > 0;
  const emptied =
    meta.deletionTimestamp !== undefined &&
    (meta.finalizers ?? []).length === 0 &&
    (meta.deletionGracePeriodSeconds ?? 0) === 0 &&
    !nsHeld;
  if (dryRun) return { code: 200, body: present(target, next) };
  if (emptied) {
    // The stored object is deleted as it was (its DELETED event still lists the finalizers); the answer is the
    // object as submitted, at the resourceVersion it was read at, as from the real server.
    state.store.remove(key, objectKey(meta.namespace ?? '', meta.name ?? ''));
    return {
      code: 200,
      body: present(target, { ...next, metadata: { ...next.metadata, resourceVersion: old.metadata.resourceVersion } }),
    };
  }
  if (isNoop(old, next)) return { code: 200, body: present(target, old) };
  return { code: 200, body: present(target, state.store.put(key, next)) };
}

/**
 * Stores `given` (a PUT body, a patched object, an applied one) as the new state of `old`, as PUT, PATCH and
 * server-side apply do: with the status subresource's rules when the target is `status`, and `track` recording the
 * field manager's part of the change.
 */
export function updateAt(
  state: ServerState,
  target: RequestTarget,
  old: KubeObject,
  given: unknown,
  track: (decoded: KubeObject) => void,
  dryRun: boolean,
): Reply {
  const subresource = target.subresource === 'status' ? 'status' : undefined;
  const scope = { resource: target.resource, version: target.version, namespace: target.namespace };
  const next = prepareUpdate(state.runtime, scope, old, given, subresource, true, track);
  return commitUpdate(state, target, old, next, dryRun);
}
