/**
 * `ownedView`: owners with the objects they own, through owner references, at any depth.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describeValue } from '../error-messages/index.js';
import { joinView } from './join-view.js';
import type { JoinRow, View, ViewInput, ViewOptions } from './types.js';

/** Options of `views.owned`. */
export interface OwnedViewOptions<O extends KubernetesObject, C extends KubernetesObject>
  extends ViewOptions<JoinRow<O, C>> {
  /** Follow every owner reference, not only the controller one (`controller: true`). Default `false`. */
  readonly allOwners?: boolean;
}

/**
 * A view with one row per owner: the owner, and a `Store` of the objects whose owner references point at it. The
 * join is by `uid`, as the garbage collector follows references: an owner deleted and created again under the same
 * name is another owner, and does not inherit its predecessor's dependents.
 *
 * It stacks, because a row of a join carries its left object's metadata (owner references included): Deployments
 * with their ReplicaSets, each with its Pods:
 *
 * ```ts
 * const replicaSetPods = ownedView(replicaSets, pods);
 * const deploymentTree = ownedView(deployments, replicaSetPods);
 * const row = deploymentTree.current().get('default/web');
 * const podCount = [...(row?.right.values() ?? [])].reduce((n, rs) => n + rs.right.size, 0);
 * ```
 *
 * # Guarantees
 * - Everything `views.join` guarantees, with the owner's `metadata.uid` as left key and the `uid`s of the
 *   object's controller reference (every reference with `allOwners`) as right keys.
 * - A change several levels down costs one step per level: a Pod's change rewrites its ReplicaSet's row, which
 *   rewrites its Deployment's row; nothing else is read.
 * - Malformed owner references (not an array, a reference that is not an object or has no `uid`) are reported on
 *   `problems$` with the object's key; the object's well-formed references still count.
 *
 * # Caveats
 * - Owners and owned objects come from the informers given: a namespace-scoped informer on one side only sees the
 *   part of the relation inside that namespace.
 * - An owner reference whose owner is not (yet) in the owners' informer joins nothing until the owner arrives.
 */
export function ownedView<O extends KubernetesObject, C extends KubernetesObject>(
  owners: ViewInput<O>,
  owned: ViewInput<C>,
  options: OwnedViewOptions<O, C> = {},
): View<JoinRow<O, C>> {
  const allOwners = options.allOwners ?? false;
  if (typeof allOwners !== 'boolean')
    throw new TypeError(`ownedView: allOwners must be a boolean, got ${describeValue(allOwners)}`);
  return joinView<O, C>(owners, owned, {
    ...options,
    name: 'ownedView',
    leftKey: (owner) => owner.metadata?.uid,
    rightKey: (object) => ownerUids(object, allOwners),
  });
}

/** The uids an object's owner references point at; throws, after yielding the good ones, on a malformed one. */
function* ownerUids(object: KubernetesObject, allOwners: boolean): Generator<string> {
  const references: unknown = object.metadata?.ownerReferences;
  if (references === undefined || references === null) return;
  if (!Array.isArray(references))
    throw new TypeError(`metadata.ownerReferences is ${describeValue(references)}, not an array`);
  let malformed: { readonly value: unknown } | undefined;
  for (const reference of references as unknown[]) {
    const uid = typeof reference === 'object' && reference !== null ? (reference as { uid?: unknown }).uid : undefined;
    if (typeof uid !== 'string' || uid === '') {
      malformed ??= { value: reference };
      continue;
    }
    if (allOwners || (reference as { controller?: unknown }).controller === true) yield uid;
  }
  if (malformed !== undefined) throw new TypeError(`an owner reference has no uid: ${describeValue(malformed.value)}`);
}
