/**
 * The Pod side of the controller: the owner index the sync finds a PodSet's Pods through, and what each Pod event
 * does (kube-controller-manager's `addPod`, `updatePod` and `deletePod`): lower the owner's expectations, then
 * wake the owner up.
 * @module
 */
import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { keyFor, owners, type InformerEvent, type ResourceClient } from '../../src/index.js';
import type { Expectations } from './expectations.js';
import { podKey } from './pods.js';
import { PODSET, PODSET_GROUP, type PodSet } from './podset.js';

/** The name of the Pod informer's index of Pods by the uid of the PodSet that controls them. */
export const POD_OWNER_INDEX = 'podSetUid';

/**
 * The index function of {@link POD_OWNER_INDEX}: the uid in a Pod's controller reference when that controller is
 * a PodSet (`AddPodControllerIndexer`, narrowed to one kind). Pods controlled by anything else, and orphans, are not
 * indexed.
 */
export function podOwnerIndex(pod: V1Pod): string | undefined {
  const ref = podSetReferenceOf(pod);
  return ref?.uid || undefined;
}

/** The Pod's controller reference if it points at a PodSet. */
function podSetReferenceOf(pod: V1Pod | undefined): V1OwnerReference | undefined {
  const ref = pod === undefined ? undefined : owners.controllerOf(pod);
  if (ref === undefined || ref.kind !== PODSET.kind || ref.apiVersion?.split('/')[0] !== PODSET_GROUP) return undefined;
  return ref;
}

/** What the Pod event handler reads and changes. */
export interface PodEventContext {
  readonly expectations: Expectations;
  /** The PodSet informer: a reference resolves only to the PodSet it names, with the same uid. */
  readonly podSets: ResourceClient.StoreSource<PodSet>;
}

/**
 * The PodSet keys a Pod event wakes up, after lowering their expectations: kube-controller-manager's Pod handlers.
 *
 * - `added`: a creation observed for its PodSet; a Pod that arrives already being deleted (seen after a restart)
 *   counts as a deletion instead.
 * - `updated`: an update that sets `deletionTimestamp` is the deletion observed (a Pod deleted gracefully is gone
 *   as a replica from then on, so a replacement need not wait for the kubelet); a changed controller reference
 *   wakes the old PodSet as well. Any other change (readiness) wakes the owner for its status. An update that does
 *   not change the resourceVersion (a resync) does nothing.
 * - `deleted`, tombstones included: the deletion observed, the owner woken.
 * - `resync`: nothing (the PodSets' own resyncs re-check them).
 *
 * # Guarantees
 * - A reference resolves to a PodSet only when the cache has a PodSet of that name whose uid is the reference's
 *   (`resolveControllerRef`), so Pods of a deleted PodSet, or of an older one under the same name, change nothing.
 * - Expectations are lowered before the key is returned, so the run the key triggers sees them lowered.
 */
export function podEventKeys(event: InformerEvent<V1Pod>, context: PodEventContext): string[] {
  switch (event.type) {
    case 'added':
      if (event.object.metadata?.deletionTimestamp != null) return deletePod(event.object, context);
      return addPod(event.object, context);
    case 'updated':
      return updatePod(event.old, event.object, context);
    case 'deleted':
      return deletePod(event.object, context);
    case 'resync':
      return [];
  }
}

function addPod(pod: V1Pod, context: PodEventContext): string[] {
  const key = resolveOwner(pod, podSetReferenceOf(pod), context);
  if (key === undefined) return [];
  context.expectations.creationObserved(key);
  return [key];
}

function updatePod(old: V1Pod, current: V1Pod, context: PodEventContext): string[] {
  if (old.metadata?.resourceVersion === current.metadata?.resourceVersion) return [];
  const oldRef = podSetReferenceOf(old);
  const currentRef = podSetReferenceOf(current);
  const refChanged = oldRef?.uid !== currentRef?.uid || oldRef?.name !== currentRef?.name;
  if (current.metadata?.deletionTimestamp != null) {
    return unique([...deletePod(current, context), ...(refChanged ? deletePod(old, context) : [])]);
  }
  const keys: string[] = [];
  if (refChanged) {
    const oldKey = resolveOwner(old, oldRef, context);
    if (oldKey !== undefined) keys.push(oldKey);
  }
  const key = resolveOwner(current, currentRef, context);
  if (key !== undefined) keys.push(key);
  return unique(keys);
}

function deletePod(pod: V1Pod, context: PodEventContext): string[] {
  const key = resolveOwner(pod, podSetReferenceOf(pod), context);
  if (key === undefined) return [];
  context.expectations.deletionObserved(key, podKey(pod));
  return [key];
}

/** `resolveControllerRef`: the key of the cached PodSet the reference names, if its uid matches. */
function resolveOwner(pod: V1Pod, ref: V1OwnerReference | undefined, context: PodEventContext): string | undefined {
  if (ref === undefined) return undefined;
  const key = keyFor(ref.name, pod.metadata?.namespace);
  const podSet = context.podSets.current().get(key);
  return podSet?.metadata?.uid === ref.uid ? key : undefined;
}

function unique(keys: string[]): string[] {
  return [...new Set(keys)];
}
