/** Informer events built by hand, shared by the predicate and trigger specs. */
import type { KubernetesObject, V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { InformerEvent } from '../../../src/informer/index.js';
import { Store } from '../../../src/store/index.js';

const snapshot = Store.empty();

/**
 * An object; `meta` overrides `metadata` fields, `namespace: undefined` makes it cluster-scoped, `kind: null` leaves
 * the kind out.
 */
export function obj(name: string, meta: Partial<V1ObjectMeta> = {}, kind: string | null = 'Pod'): KubernetesObject {
  return {
    apiVersion: 'v1',
    ...(kind === null ? {} : { kind }),
    metadata: { name, namespace: 'default', resourceVersion: '1', generation: 1, ...meta },
  };
}

/** An owner reference; `controller` defaults to true. */
export function ownerRef(kind: string, name: string, extra: Partial<V1OwnerReference> = {}): V1OwnerReference {
  const apiVersion = kind === 'ReplicaSet' ? 'apps/v1' : 'v1';
  return { apiVersion, kind, name, uid: `uid-${name}`, controller: true, ...extra };
}

function keyOf(o: KubernetesObject): string {
  const ns = o.metadata?.namespace;
  return ns ? `${ns}/${o.metadata?.name}` : `${o.metadata?.name}`;
}

export const added = (object: KubernetesObject): InformerEvent => ({
  type: 'added',
  key: keyOf(object),
  object,
  snapshot,
});
export const updated = (old: KubernetesObject, object: KubernetesObject): InformerEvent => ({
  type: 'updated',
  key: keyOf(object),
  old,
  object,
  snapshot,
});
export const deleted = (object: KubernetesObject, stateUnknown = false): InformerEvent => ({
  type: 'deleted',
  key: keyOf(object),
  object,
  stateUnknown,
  snapshot,
});
export const resync = (object: KubernetesObject): InformerEvent => ({
  type: 'resync',
  key: keyOf(object),
  object,
  snapshot,
});

/** Collects errors handed to an `onError` option. */
export function errorSink(): { readonly errors: Error[]; readonly onError: (error: Error) => void } {
  const errors: Error[] = [];
  return { errors, onError: (error) => errors.push(error) };
}
