/**
 * The Kubernetes rights the website operator needs, as RBAC policy rules: what its ServiceAccount's Role (with
 * `--namespace`) or ClusterRole (without) grants, and what the e2e spec runs it with, and nothing more.
 * @module
 */
import type { V1PolicyRule } from '@kubernetes/client-node';
import { WEBSITE_GROUP } from './website.js';

/**
 * What the controller does with each kind, in the namespace it watches (every namespace: a ClusterRole):
 * - `websites`: `list`, `watch` (the cache), `patch` (the finalizer, a JSON Patch guarded by the resourceVersion)
 *   and `get` (the finalizer's re-read after a conflict, when the cache is not newer);
 * - `websites/status`: `patch` (server-side apply of the status);
 * - `websites/finalizers`: `update`, which the `OwnerReferencesPermissionEnforcement` admission plugin (where it is
 *   on) requires to set `blockOwnerDeletion` on the owned objects' references to a Website;
 * - `deployments`, `services`, `configmaps`: `list`, `watch` (the caches of `owns` and `watches`), `patch`
 *   (server-side apply) and `create` (an apply that creates an object is authorized as a create too). No `get`,
 *   `update` or `delete`: reads come from the caches, and the garbage collector deletes what a Website owned;
 * - `events.k8s.io` `events`: `create`, `patch` (a series' count) and `get` (an Event whose create answer was lost).
 */
export const WEBSITE_OPERATOR_RULES: readonly V1PolicyRule[] = Object.freeze([
  { apiGroups: [WEBSITE_GROUP], resources: ['websites'], verbs: ['get', 'list', 'watch', 'patch'] },
  { apiGroups: [WEBSITE_GROUP], resources: ['websites/status'], verbs: ['patch'] },
  { apiGroups: [WEBSITE_GROUP], resources: ['websites/finalizers'], verbs: ['update'] },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch', 'create', 'patch'] },
  { apiGroups: [''], resources: ['services', 'configmaps'], verbs: ['list', 'watch', 'create', 'patch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'get'] },
]);

/**
 * Leader election, in `--leader-elect-resource-namespace` only (a Role there): `get`, `update` and `create` of
 * Leases (`create` cannot be limited to a name; `get` and `update` could be, to the Lease `website-operator`).
 */
export const LEADER_ELECTION_RULES: readonly V1PolicyRule[] = Object.freeze([
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
]);

/**
 * Only for `--install-crd` (cluster-scoped; a deployment installs the CRD with `kubectl apply` instead and grants
 * none of this): `get`, `create` and `update` of CustomResourceDefinitions.
 */
export const INSTALL_CRD_RULES: readonly V1PolicyRule[] = Object.freeze([
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'create', 'update'] },
]);
