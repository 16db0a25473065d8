/**
 * The one shape of "a Kubernetes object" that the helpers taking objects from users accept.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';

/**
 * An object as the API serves it, or an Immer draft of one: client-node's `KubernetesObject`, every typed model
 * (`V1Pod`, …) and an informer's objects fit. Every field is optional, as in client-node's models; each function that
 * takes one says which fields it needs and refuses, with an error naming them, an object that lacks them.
 *
 * # Caveats
 * - The fields are declared writable so that drafts fit: `owners.setControllerReference` writes
 *   `metadata.ownerReferences`; nothing else writes to an object it is given.
 */
export interface ObjectLike {
  /** The object's apiVersion, e.g. `apps/v1`; required to reference it. */
  apiVersion?: string;
  /** The object's kind, e.g. `Deployment`; required to reference it. */
  kind?: string;
  /** The object's identity, and the owner references `owners` reads and writes. */
  metadata?: {
    /** The object's name; required to reference it. */
    name?: string;
    /** The object's namespace; omitted for cluster-scoped objects. */
    namespace?: string;
    /** The object's uid. */
    uid?: string;
    /** The object's resourceVersion. */
    resourceVersion?: string;
    /** The objects that own it; `owners.setControllerReference` writes the controller's. */
    ownerReferences?: readonly V1OwnerReference[];
  };
}
