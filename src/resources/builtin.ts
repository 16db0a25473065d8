/**
 * Built-in resource table: the core kinds resolve without a discovery round trip.
 */
import { splitApiVersion } from '../objects/index.js';

/**
 * A resource resolved to what the URL needs.
 *
 * `group` is `''` for the core group.
 */
export interface ResolvedResource {
  /** The API group, `''` for the core group. */
  readonly group: string;
  /** The API version within the group, e.g. `v1`. */
  readonly version: string;
  /** The kind, e.g. `Deployment`. */
  readonly kind: string;
  /** Lower-case plural as used in URLs, e.g. `deployments`. */
  readonly plural: string;
  /** Whether objects of the kind live in a namespace. */
  readonly namespaced: boolean;
}

type Row = readonly [apiVersion: string, kind: string, plural: string, namespaced: boolean];

const rows: readonly Row[] = [
  ['v1', 'Pod', 'pods', true],
  ['v1', 'Node', 'nodes', false],
  ['v1', 'Namespace', 'namespaces', false],
  ['v1', 'ConfigMap', 'configmaps', true],
  ['v1', 'Secret', 'secrets', true],
  ['v1', 'Service', 'services', true],
  ['v1', 'ServiceAccount', 'serviceaccounts', true],
  ['v1', 'Endpoints', 'endpoints', true],
  ['v1', 'Event', 'events', true],
  ['v1', 'PersistentVolume', 'persistentvolumes', false],
  ['v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true],
  ['v1', 'ResourceQuota', 'resourcequotas', true],
  ['v1', 'LimitRange', 'limitranges', true],
  ['v1', 'ReplicationController', 'replicationcontrollers', true],
  ['apps/v1', 'Deployment', 'deployments', true],
  ['apps/v1', 'ReplicaSet', 'replicasets', true],
  ['apps/v1', 'StatefulSet', 'statefulsets', true],
  ['apps/v1', 'DaemonSet', 'daemonsets', true],
  ['apps/v1', 'ControllerRevision', 'controllerrevisions', true],
  ['batch/v1', 'Job', 'jobs', true],
  ['batch/v1', 'CronJob', 'cronjobs', true],
  ['coordination.k8s.io/v1', 'Lease', 'leases', true],
  ['events.k8s.io/v1', 'Event', 'events', true],
  ['discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices', true],
  ['networking.k8s.io/v1', 'Ingress', 'ingresses', true],
  ['networking.k8s.io/v1', 'IngressClass', 'ingressclasses', false],
  ['networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', true],
  ['policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true],
  ['autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true],
  ['rbac.authorization.k8s.io/v1', 'Role', 'roles', true],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false],
  ['storage.k8s.io/v1', 'StorageClass', 'storageclasses', false],
  ['scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false],
  ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
];

const table = new Map<string, ResolvedResource>(
  rows.map(([apiVersion, kind, plural, namespaced]) => {
    const { group, version } = splitApiVersion(apiVersion);
    return [`${apiVersion}|${kind}`, { group, version, kind, plural, namespaced }];
  }),
);

/** Looks a kind up in the built-in table; `undefined` means discovery is needed. */
export function builtinResource(apiVersion: string, kind: string): ResolvedResource | undefined {
  return table.get(`${apiVersion}|${kind}`);
}

const scopesByKind = new Map<string, Map<string, boolean>>();
for (const { group, kind, namespaced } of table.values()) {
  const groups = scopesByKind.get(kind) ?? new Map<string, boolean>();
  groups.set(group, namespaced);
  scopesByKind.set(kind, groups);
}
const NO_SCOPES: ReadonlyMap<string, boolean> = new Map();

/**
 * The scope of a built-in kind in each API group that has it (`''` for the core group), whatever the version (a
 * kind's scope does not change between versions): `true` when namespaced. Empty when the table does not know the
 * kind. `Event` is in `''` and `events.k8s.io`; a custom resource is in none.
 */
export function builtinScopes(kind: string): ReadonlyMap<string, boolean> {
  return scopesByKind.get(kind) ?? NO_SCOPES;
}
