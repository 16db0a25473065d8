/**
 * Reading owner references: which references match, and the key of the owner they point at.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { groupOfApiVersion, keyFor } from '../../objects/index.js';
import type { Complain } from './key-mapper.js';

/** What an owner reference must match, resolved from {@link ToOwnerKeysOptions}. */
export interface OwnerMatch {
  readonly kind: string;
  /** The API group to match (`''` for the core group); `undefined` matches any group. */
  readonly group: string | undefined;
  readonly allOwners: boolean;
  /** The scope of the kind in the groups the built-in table knows it in (`true`: namespaced). */
  readonly builtin: ReadonlyMap<string, boolean>;
  /** What the caller said about the scope of the kind in any other group; `undefined`: nothing. */
  readonly clusterScoped: boolean | undefined;
}

/**
 * Whether the owner a reference points at is namespaced: the built-in table's answer for its group, else what the
 * caller said; `undefined` when neither knows, so that no key is ever guessed.
 */
function ownerNamespaced(match: OwnerMatch, apiVersion: unknown): boolean | undefined {
  const group = match.group ?? (typeof apiVersion === 'string' ? groupOfApiVersion(apiVersion) : undefined);
  const builtin = group === undefined ? undefined : match.builtin.get(group);
  return builtin ?? (match.clusterScoped === undefined ? undefined : !match.clusterScoped);
}

const CORE_VERSION = /^v\d+(?:(?:alpha|beta)\d+)?$/;

/**
 * The API group of an `apiVersion`: `apps` for `apps/v1`, `''` for `v1`.
 *
 * Throws a `TypeError` for a bare word that is not a core version (`'apps'`), because reading it as the core group
 * would silently match nothing; `apps/v1` was meant.
 */
export function groupOf(apiVersion: string): string {
  if (!apiVersion.includes('/') && !CORE_VERSION.test(apiVersion)) {
    throw new TypeError(`apiVersion ${JSON.stringify(apiVersion)} is neither group/version nor a core version like v1`);
  }
  return groupOfApiVersion(apiVersion);
}

/**
 * The keys of the owners of `object` that match, appended to `keys` (a Set, so an owner named twice counts once).
 *
 * A namespaced owner lives in the namespace of its namespaced dependent (cross-namespace owner references are not
 * allowed), so its key is `namespace/name`; a cluster-scoped owner, or the owner of a cluster-scoped dependent (which
 * can only be cluster-scoped), is keyed `name` alone. An owner whose scope is unknown is complained about and skipped.
 */
export function addOwnerKeys(
  object: KubernetesObject | undefined,
  match: OwnerMatch,
  keys: Set<string>,
  complain: Complain,
): void {
  const refs: unknown = object?.metadata?.ownerReferences;
  if (refs === undefined || refs === null) return;
  if (!Array.isArray(refs)) {
    complain('metadata.ownerReferences is not an array', { value: refs });
    return;
  }
  for (const ref of refs as unknown[]) {
    if (typeof ref !== 'object' || ref === null) {
      complain('an owner reference is not an object', { value: ref });
      continue;
    }
    const { kind, apiVersion, controller, name } = ref as Record<string, unknown>;
    if (kind !== match.kind) continue;
    if (!match.allOwners && controller !== true) continue;
    if (
      match.group !== undefined &&
      !(typeof apiVersion === 'string' && groupOfApiVersion(apiVersion) === match.group)
    ) {
      continue;
    }
    if (typeof name !== 'string' || name === '') {
      complain(`a matching ${match.kind} owner reference has no name`, { value: ref });
      continue;
    }
    const namespace = object?.metadata?.namespace;
    if (namespace === undefined || namespace === '') {
      keys.add(name);
      continue;
    }
    const namespaced = ownerNamespaced(match, apiVersion);
    if (namespaced === undefined) {
      complain(
        `cannot tell whether ${match.kind} of ${String(apiVersion)} is cluster-scoped; pass apiVersion to match one group, or clusterScoped`,
        { value: ref },
      );
      continue;
    }
    keys.add(namespaced ? keyFor(name, namespace) : name);
  }
}
