/**
 * Each informer event to the key of the object's owner: children trigger their parent.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerEvent } from '../../informer/index.js';
import { eventReason } from './describe.js';
import { keyMapper } from './keyMapper.js';
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
   * The owner kind is cluster-scoped: keys are the owner's `name` alone even for a namespaced dependent (a
   * namespaced Pod owned by a cluster-scoped custom resource). Default `false`.
   */
  readonly clusterScoped?: boolean;
}

/**
 * Triggers the owner of each event's object: controller-runtime's `Owns()` / `EnqueueRequestForOwner`.
 *
 * # Guarantees
 * - By default only the controller reference (`controller: true`) of the given kind (and API group, when
 *   `apiVersion` is given) is followed; `allOwners: true` follows every reference of that kind.
 * - Keys: `namespace/ownerName` for a namespaced dependent (owner references cannot cross namespaces);
 *   `ownerName` for a cluster-scoped dependent, or when `clusterScoped` says the owner kind is cluster-scoped.
 * - On `updated`, the owners of both `old` and `object` are triggered, each once: an adopted or orphaned child
 *   wakes both its former and its new owner.
 * - `deleted` events, tombstones included, trigger the owners recorded on the last known state.
 * - Reasons name the child event: `deleted Pod default/web-7x2` on the ReplicaSet's run.
 * - Malformed owner references (not an array, not an object, a matching one without a name) are reported as
 *   `KeyMappingError`s to `options.onError` (default: `reportError`); the other references still trigger.
 *
 * # Caveats
 * - With the default (`allOwners: false`), an object with several owner references of the kind but none marked
 *   `controller` triggers nothing; that is the controller-runtime rule, set `allOwners` to follow them all.
 * - Nothing checks that the owner exists or has the `uid` in the reference; the reconcile function reads the store
 *   and sees the truth.
 * - Throws a `TypeError` at once for a missing `kind` or an `apiVersion` like `'apps'` (meant `apps/v1`).
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
  const { kind, apiVersion, allOwners = false, clusterScoped = false } = options ?? ({} as ToOwnerKeysOptions);
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
  return { kind, group, allOwners: allOwners === true, clusterScoped: clusterScoped === true };
}
