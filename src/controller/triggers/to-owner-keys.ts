/**
 * Each informer event to the key of the object's owner: children trigger their parent.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describeValue } from '../../error-messages/index.js';
import type { InformerEvent } from '../../informer/index.js';
import { builtinScopes } from '../../resources/index.js';
import { eventReason } from './loose-event.js';
import { keyMapper } from './key-mapper.js';
import { addOwnerKeys, groupOf } from './owners.js';
import type { OwnerMatch } from './owners.js';
import type { TriggerOperator, TriggerOptions } from './types.js';

/** Which owners {@link toOwnerKeys} follows. */
export interface ToOwnerKeysOptions extends TriggerOptions {
  /** The owner's kind, exactly as in the owner reference (`ReplicaSet`). Required. */
  readonly kind: string;
  /**
   * The owner's API version; only its group is compared (`apps/v1` matches `apps/v1beta2` references), as
   * controller-runtime compares group and kind. Omitted: any group.
   */
  readonly apiVersion?: string;
  /** Follow every matching owner reference, not just the one with `controller: true`. Default `false`. */
  readonly allOwners?: boolean;
  /**
   * Whether the owner kind is cluster-scoped, for a kind the built-in table does not know (a custom resource):
   * `true` keys a namespaced dependent's owner by its `name` alone, `false` by `namespace/name`. Required for such
   * a kind, so that a key is never guessed: `controller()` finds it through discovery. A built-in kind (Namespace,
   * Node, ClusterRole, ReplicaSet…) always gets its real scope; a value that contradicts it throws.
   */
  readonly clusterScoped?: boolean;
}

/**
 * Triggers the owner of each event's object: controller-runtime's `Owns()` / `EnqueueRequestForOwner`.
 *
 * # Guarantees
 * - By default only the controller reference (`controller: true`) of the given kind (and API group, when
 *   `apiVersion` is given) is followed; `allOwners: true` follows every reference of that kind.
 * - Keys are the owner's store key, never a guess: `namespace/ownerName` for a namespaced owner (owner references
 *   cannot cross namespaces), `ownerName` for a cluster-scoped one (a ConfigMap owned by its Namespace triggers
 *   `team-a`). The owner's scope comes from the built-in table for the reference's group and kind, else from
 *   `clusterScoped`; the owner of a cluster-scoped dependent is cluster-scoped.
 * - On `updated`, the owners of both `old` and `object` are triggered, each once: an adopted or orphaned child
 *   wakes both its former and its new owner.
 * - `deleted` events, tombstones included, trigger the owners recorded on the last known state.
 * - Reasons name the child event: `deleted Pod default/web-7x2` on the ReplicaSet's run.
 * - Malformed owner references (not an array, not an object, a matching one without a name) are reported as
 *   `KeyMappingError`s to `options.onError` (default: `reportError`); the other references still trigger. So is a
 *   matching reference whose owner scope is unknown (no `apiVersion` given, a group the table does not know, no
 *   `clusterScoped`): it triggers nothing rather than a wrong key.
 *
 * # Caveats
 * - With the default (`allOwners: false`), an object with several owner references of the kind but none marked
 *   `controller` triggers nothing; that is the controller-runtime rule, set `allOwners` to follow them all.
 * - Nothing checks that the owner exists or has the `uid` in the reference; the reconcile function reads the store
 *   and sees the truth.
 * - Throws a `TypeError` at once for a missing `kind`, an `apiVersion` like `'apps'` (meant `apps/v1`), an owner
 *   kind whose scope is unknown (not built in, for the given group or any, and no `clusterScoped`), and a
 *   `clusterScoped` that contradicts the built-in kind of the given `apiVersion`.
 */
export function toOwnerKeys(options: ToOwnerKeysOptions): TriggerOperator {
  const match = resolveMatch(options);
  const operator = keyMapper<KubernetesObject>((event: InformerEvent, complain) => {
    const keys = new Set<string>();
    if (event?.type === 'updated') addOwnerKeys(event.old, match, keys, complain);
    addOwnerKeys(event?.object, match, keys, complain);
    if (keys.size === 0) return undefined;
    const reason = eventReason(event);
    return [...keys].map((key) => ({ key, reason }));
  }, options.onError);
  // The mapper only reads fields every InformerEvent has, so it is sound for every object type.
  return operator as unknown as TriggerOperator;
}

function resolveMatch(options: ToOwnerKeysOptions): OwnerMatch {
  const { kind, apiVersion, allOwners = false, clusterScoped } = options ?? ({} as ToOwnerKeysOptions);
  if (typeof kind !== 'string' || kind === '') throw new TypeError('toOwnerKeys: kind must be a non-empty string');
  if (apiVersion !== undefined && (typeof apiVersion !== 'string' || apiVersion === '')) {
    throw new TypeError('toOwnerKeys: apiVersion must be a non-empty string when given');
  }
  let group: string | undefined;
  try {
    group = apiVersion === undefined ? undefined : groupOf(apiVersion);
  } catch (error) {
    throw new TypeError(`toOwnerKeys: ${(error as Error).message}`);
  }
  if (clusterScoped !== undefined && typeof clusterScoped !== 'boolean') {
    throw new TypeError(`toOwnerKeys: clusterScoped must be a boolean when given, got ${describeValue(clusterScoped)}`);
  }
  const builtin = builtinScopes(kind);
  const named = apiVersion === undefined ? kind : `${kind} (${apiVersion})`;
  // With no group given, a built-in kind is known in its groups; references of other groups are judged one by one.
  const builtIn = group === undefined ? builtin.size > 0 : builtin.has(group);
  if (!builtIn && clusterScoped === undefined) {
    throw new TypeError(
      `toOwnerKeys: cannot tell whether ${named} is cluster-scoped: it is not a built-in kind; pass clusterScoped: true or false`,
    );
  }
  const namespaced = group === undefined ? undefined : builtin.get(group);
  if (namespaced !== undefined && clusterScoped !== undefined && namespaced === clusterScoped) {
    throw new TypeError(
      `toOwnerKeys: ${named} is ${namespaced ? 'namespaced' : 'cluster-scoped'}, but clusterScoped is ${String(clusterScoped)}`,
    );
  }
  return { kind, group, allOwners: allOwners === true, builtin, clusterScoped };
}
