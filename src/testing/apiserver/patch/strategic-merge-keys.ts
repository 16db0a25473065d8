/** Which lists strategic merge patch merges, per built-in kind (from the `patchStrategy`/`patchMergeKey` tags). */

/** Table value for lists of scalars with `patchStrategy:"merge"` (set union), e.g. `metadata.finalizers`. */
export const PRIMITIVE_MERGE = '$primitive';

type Table = Record<string, string>;

const METADATA: Table = {
  'metadata.finalizers': PRIMITIVE_MERGE,
  'metadata.ownerReferences': 'uid',
};

function podTemplateMetadata(prefix: string): Table {
  return { [`${prefix}metadata.finalizers`]: PRIMITIVE_MERGE, [`${prefix}metadata.ownerReferences`]: 'uid' };
}

/** Merge keys inside a core/v1 PodSpec living at `prefix` (e.g. `spec.template.spec.`). */
function podSpec(prefix: string): Table {
  const table: Table = {
    [`${prefix}volumes`]: 'name',
    [`${prefix}imagePullSecrets`]: 'name',
    [`${prefix}hostAliases`]: 'ip',
    [`${prefix}topologySpreadConstraints`]: 'topologyKey',
    [`${prefix}schedulingGates`]: 'name',
    [`${prefix}resourceClaims`]: 'name',
  };
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    table[`${prefix}${list}`] = 'name';
    table[`${prefix}${list}.ports`] = 'containerPort';
    table[`${prefix}${list}.env`] = 'name';
    table[`${prefix}${list}.volumeMounts`] = 'mountPath';
    table[`${prefix}${list}.volumeDevices`] = 'devicePath';
  }
  return table;
}

const CONDITIONS: Table = { 'status.conditions': 'type' };
const WORKLOAD: Table = {
  ...METADATA,
  ...podTemplateMetadata('spec.template.'),
  ...podSpec('spec.template.spec.'),
  ...CONDITIONS,
};

/**
 * Strategic-merge list strategies by kind: `path -> mergeKey` (objects merged by that field) or
 * `path -> PRIMITIVE_MERGE` (scalars unioned). Paths are dot-joined field names relative to the object;
 * list elements add no segment (`spec.containers.env` is the env list of every container).
 *
 * # Guarantees
 * - Entries copy the Go struct tags of k8s.io/api: containers/initContainers/ephemeralContainers, volumes,
 *   env, imagePullSecrets, schedulingGates, resourceClaims by `name`; ports by `containerPort`; volumeMounts by
 *   `mountPath`; volumeDevices by `devicePath`; hostAliases and Pod `status.podIPs` by `ip`;
 *   topologySpreadConstraints by `topologyKey`; ownerReferences by `uid`; conditions and Node addresses by
 *   `type`; Service ports by `port`; ServiceAccount secrets by `name`; `metadata.finalizers` is a merged
 *   primitive list.
 * - Every other list is atomic (replaced whole), as Kubernetes does for e.g. `tolerations`, `args`, `command`,
 *   `envFrom`, `readinessGates`, Node `spec.taints`.
 *
 * # Caveats
 * - A documented subset of built-in kinds; custom resources are absent (kube-apiserver answers 415 to SMP on
 *   them). Unknown kinds fall back to {@link DEFAULT_STRATEGIC_MERGE_KEYS} (metadata only).
 */
export const STRATEGIC_MERGE_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Pod: { ...METADATA, ...podSpec('spec.'), ...CONDITIONS, 'status.podIPs': 'ip' },
  PodTemplate: { ...METADATA, ...podTemplateMetadata('template.'), ...podSpec('template.spec.') },
  Deployment: WORKLOAD,
  ReplicaSet: WORKLOAD,
  StatefulSet: WORKLOAD,
  DaemonSet: WORKLOAD,
  ReplicationController: WORKLOAD,
  Job: WORKLOAD,
  CronJob: {
    ...METADATA,
    ...podTemplateMetadata('spec.jobTemplate.spec.template.'),
    ...podSpec('spec.jobTemplate.spec.template.spec.'),
  },
  Node: { ...METADATA, ...CONDITIONS, 'status.addresses': 'type' },
  Service: { ...METADATA, 'spec.ports': 'port', ...CONDITIONS },
  Namespace: { ...METADATA, ...CONDITIONS },
  PersistentVolumeClaim: { ...METADATA, ...CONDITIONS },
  ServiceAccount: { ...METADATA, secrets: 'name' },
  ConfigMap: METADATA,
  Secret: METADATA,
  Endpoints: METADATA,
  Event: METADATA,
  Lease: METADATA,
};

/** The table used for kinds missing from {@link STRATEGIC_MERGE_KEYS}: only the ObjectMeta lists. */
export const DEFAULT_STRATEGIC_MERGE_KEYS: Readonly<Record<string, string>> = METADATA;

/** True when `kind` has its own entry in {@link STRATEGIC_MERGE_KEYS}. */
export function supportsStrategicMerge(kind: string): boolean {
  return Object.hasOwn(STRATEGIC_MERGE_KEYS, kind);
}
