/**
 * Where a call goes: the object's name and namespace, checked against the resource's scope and the client's
 * namespace, and the URL path built from them.
 */
import { collectionPath } from '../../resources/index.js';
import type { ResolvedResource } from 'rxkube/extend';
import type { ResourceClient } from './client.js';

/** The namespace and name a call acts on. */
export interface Target {
  /** Undefined for a cluster-scoped resource. */
  readonly namespace: string | undefined;
  readonly name: string;
}

/**
 * A call the client refuses before sending it: a missing name or namespace, or one outside its scope. Not exported:
 * it marks a mistake in the calling code, and its `name` tells it apart.
 */
export class ClientScopeError extends Error {
  /** Always `'ClientScopeError'`. */
  override readonly name = 'ClientScopeError';
}

/**
 * The namespace of a call on `resource` by a client scoped to `clientNamespace`, for an object that says
 * `objectNamespace`.
 *
 * # Guarantees
 * - A namespaced client never reaches another namespace: a different namespace on the object is an error.
 * - Cluster-scoped resources get no namespace; a namespaced client of a cluster-scoped kind is an error.
 */
export function namespaceOf(
  resource: ResolvedResource,
  clientNamespace: string | undefined,
  objectNamespace: string | undefined,
  what: string,
): string | undefined {
  if (!resource.namespaced) {
    if (clientNamespace !== undefined) {
      throw new ClientScopeError(
        `${resource.kind} is cluster-scoped: a client for it cannot have namespace "${clientNamespace}"`,
      );
    }
    return undefined;
  }
  const fromObject = objectNamespace === '' ? undefined : objectNamespace;
  if (clientNamespace !== undefined && fromObject !== undefined && fromObject !== clientNamespace) {
    throw new ClientScopeError(
      `${what}: the object is in namespace "${fromObject}" but the client is scoped to "${clientNamespace}"`,
    );
  }
  const namespace = clientNamespace ?? fromObject;
  if (namespace === undefined) {
    throw new ClientScopeError(
      `${what}: ${resource.kind} is namespaced; give the client a namespace or the object a metadata.namespace`,
    );
  }
  return namespace;
}

/** The target of `ref` (a name, or an object with `metadata.name`). */
export function targetOf(
  resource: ResolvedResource,
  clientNamespace: string | undefined,
  ref: ResourceClient.ObjectRef,
  what: string,
): Target {
  const name = typeof ref === 'string' ? ref : ref?.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new ClientScopeError(`${what}: the object has no metadata.name`);
  const objectNamespace = typeof ref === 'string' ? undefined : ref.metadata?.namespace;
  return { namespace: namespaceOf(resource, clientNamespace, objectNamespace, what), name };
}

/** `/api/v1/namespaces/ns/pods/name`, plus `/status` for the status subresource. */
export function objectPath(resource: ResolvedResource, target: Target, subresource?: 'status'): string {
  const path = `${collectionPath(resource, target.namespace)}/${encodeURIComponent(target.name)}`;
  return subresource === undefined ? path : `${path}/${subresource}`;
}
