/**
 * Owner references, as controller-runtime's `controllerutil` sets them: the controller reference that makes an
 * object a dependent of its owner for garbage collection and for `toOwnerKeys`.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';
import { groupOfApiVersion, isPartialObjectMetadata } from '../../objects/index.js';
import type { ObjectLike } from '../../objects/index.js';

/**
 * An object that can own others: an {@link ObjectLike} that says what it is (`apiVersion`, `kind`) and carries its
 * `metadata.name` and the `metadata.uid` the server gave it; its `metadata.namespace` decides which objects it may
 * own. `controllerReference` refuses an owner without them.
 */
export type Owner = ObjectLike;

/** Thrown by `owners.setControllerReference` when another owner already controls the object. */
export class AlreadyOwnedError extends Error {
  /** Always `'AlreadyOwnedError'`. */
  override readonly name = 'AlreadyOwnedError';
  constructor(
    /** The object that is controlled. */
    readonly object: {
      /** Its kind, when known. */
      readonly kind?: string;
      /** Its name. */
      readonly name?: string;
      /** Its namespace. */
      readonly namespace?: string;
    },
    /** The controller reference it already has. */
    readonly owner: V1OwnerReference,
  ) {
    const at = object.namespace ? `${object.namespace}/${object.name}` : object.name;
    super(`Object ${at} is already owned by another ${owner.kind} controller ${owner.name}`);
  }
}

/** An owner or dependent that cannot be used as one: missing identity, or scopes that cannot own each other. */
export class OwnerReferenceError extends Error {
  /** Always `'OwnerReferenceError'`. */
  override readonly name = 'OwnerReferenceError';
}

/**
 * The controller reference to `owner`: `{ apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true }`.
 *
 * # Guarantees
 * - A fresh object every call.
 *
 * # Caveats
 * - Throws `owners.OwnerReferenceError` when the owner lacks `apiVersion`, `kind`, `metadata.name` or
 *   `metadata.uid`: the items of a `resourceClient` `list` of a built-in kind lack `apiVersion` and `kind`
 *   (kube-apiserver leaves them out), and an object not yet created has no uid. A reference without them would be
 *   rejected by the server (or, without a uid, never match). A `PartialObjectMetadata` (a `metadataOnly`
 *   informer's object) is refused too: its kind is not its resource's. An informer's objects (the reflector fills
 *   in what list items lack) and write answers are owners as they are.
 */
export function controllerReference(owner: Owner): V1OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  const missing = [
    apiVersion ? undefined : 'apiVersion',
    kind ? undefined : 'kind',
    name ? undefined : 'metadata.name',
    uid ? undefined : 'metadata.uid',
  ].filter((field): field is string => field !== undefined);
  if (missing.length > 0) {
    const what = [kind ?? 'object', name].filter(Boolean).join(' ');
    throw new OwnerReferenceError(`the owner ${what} cannot be referenced: it has no ${missing.join(', ')}`);
  }
  if (isPartialObjectMetadata(apiVersion, kind)) {
    throw new OwnerReferenceError(
      `the owner ${name} cannot be referenced: it is a metadata-only view (${apiVersion} PartialObjectMetadata), which does not say its kind; give it the apiVersion and kind of its resource`,
    );
  }
  return { apiVersion: apiVersion!, kind: kind!, name: name!, uid: uid!, controller: true, blockOwnerDeletion: true };
}

/**
 * Makes `owner` the controller of `object`, in place, as controller-runtime's `SetControllerReference` does.
 * Works on an Immer draft, so `client.mutate(obj, (draft) => { setControllerReference(draft, owner); })` sends
 * exactly the reference.
 *
 * # Guarantees
 * - Idempotent: a reference to the same owner (same API group, kind and name; the version may differ) is replaced
 *   in place, never duplicated. Other (non-controller) owner references are kept.
 * - Throws `owners.AlreadyOwnedError` when another object controls `object`, and changes nothing.
 * - Throws `owners.OwnerReferenceError`, changing nothing, for a reference the server would reject or the garbage
 *   collector would misread: a namespaced owner of a cluster-scoped object (known when the object's namespace is
 *   absent and the owner's is set), or an owner in another namespace.
 *
 * # Caveats
 * - Scope is read from `metadata.namespace`: an object about to be created in a namespace must carry it for the
 *   cross-namespace check to apply.
 * - Returns `object` itself (the same reference), for chaining.
 */
export function setControllerReference<O extends ObjectLike>(object: O, owner: Owner): O {
  const reference = controllerReference(owner);
  const ownerNamespace = owner.metadata?.namespace || undefined;
  const objectNamespace = object.metadata?.namespace || undefined;
  if (ownerNamespace !== undefined) {
    if (objectNamespace === undefined) {
      throw new OwnerReferenceError(
        `cluster-scoped ${describe(object)} cannot be owned by namespaced ${reference.kind} ${ownerNamespace}/${reference.name}`,
      );
    }
    if (objectNamespace !== ownerNamespace) {
      throw new OwnerReferenceError(
        `cross-namespace owner references are disallowed: ${describe(object)} cannot be owned by ${reference.kind} ${ownerNamespace}/${reference.name}`,
      );
    }
  }
  const references = object.metadata?.ownerReferences ?? [];
  const existing = references.find((ref) => ref.controller === true);
  if (existing !== undefined && !sameObject(existing, reference)) {
    throw new AlreadyOwnedError(
      { kind: object.kind, name: object.metadata?.name, namespace: objectNamespace },
      existing,
    );
  }
  const metadata = (object.metadata ??= {});
  const index = references.findIndex((ref) => sameObject(ref, reference));
  if (index === -1) metadata.ownerReferences = [...references, reference];
  else if (!sameReference(references[index]!, reference)) {
    metadata.ownerReferences = references.map((ref, i) => (i === index ? reference : ref));
  }
  return object;
}

/**
 * True when `owner` is the controller of `object`: its controller reference has the owner's uid (as
 * apimachinery's `metav1.IsControlledBy`).
 */
export function isControlledBy(object: ObjectLike, owner: Owner): boolean {
  const uid = owner.metadata?.uid;
  if (!uid) return false;
  const controller = object.metadata?.ownerReferences?.find((ref) => ref.controller === true);
  return controller?.uid === uid;
}

/** The controller reference of `object`, if it has one (apimachinery's `metav1.GetControllerOf`). */
export function controllerOf(object: ObjectLike): V1OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/** controller-runtime's `referSameObject`: same API group, kind and name (versions may differ). */
function sameObject(a: V1OwnerReference, b: V1OwnerReference): boolean {
  return groupOfApiVersion(a.apiVersion) === groupOfApiVersion(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function sameReference(a: V1OwnerReference, b: V1OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}

function describe(object: ObjectLike): string {
  const name = object.metadata?.name ?? '(unnamed)';
  const namespace = object.metadata?.namespace;
  return `${object.kind ?? 'object'} ${namespace ? `${namespace}/${name}` : name}`;
}
