/**
 * What the server knows about one served resource: names, scope, verbs, and the per-type strategy knobs that
 * differ between kube-apiserver registries.
 * @module
 */
import { eventsFieldLabels } from './events.js';

/** How `metadata.generation` behaves for a type (the registry strategies differ). */
export type GenerationPolicy =
  /** Not managed: the field is dropped on create and kept as stored on update (ConfigMap, Secret, Service...). */
  | 'none'
  /** 1 on create, bumped when `spec` changes (ReplicaSet, StatefulSet, DaemonSet, CRD). */
  | 'spec'
  /** Like `spec`, and also on annotation changes: Deployment copies annotations to its ReplicaSets. */
  | 'specAndAnnotations'
  /** 1 on create, bumped when anything but `metadata` (and `status`, with the subresource) changes (custom resources). */
  | 'nonMetadata';

/** Which name validation the type uses. */
export type NameRule = 'subdomain' | 'label' | 'label1035';

/**
 * A served resource.
 *
 * # Guarantees
 * - `storageKey` is stable across versions of the same group/resource, so all versions share one set of objects.
 */
export interface ResourceInfo {
  readonly group: string;
  /** Served versions, the first is the preferred (and storage) one. */
  readonly versions: readonly string[];
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Versions that serve the `/status` subresource (all versions for built-ins). */
  readonly statusVersions: ReadonlySet<string>;
  readonly generation: GenerationPolicy;
  readonly nameRule: NameRule;
  /** PUT without `metadata.resourceVersion` is allowed (false for custom resources and CRDs, like the real server). */
  readonly allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object instead of a success Status (pods, services). */
  readonly returnDeletedObject: boolean;
  /** Field labels accepted by fieldSelector in addition to `metadata.name` and `metadata.namespace`. */
  readonly fieldLabels: readonly string[];
  /**
   * True when the type registers its own field-label conversion (unknown labels answer `field label not
   * supported: x`); false for the default one (`"x" is not a known field selector: only ...`).
   */
  readonly customFieldLabels: boolean;
  /** True for CRD-backed resources: strategic merge patch is refused and the body must carry kind/apiVersion. */
  readonly custom: boolean;
  /**
   * The storage key of the resource this one is a view of (events.k8s.io Events are stored as core Events);
   * objects are converted between the two forms on every read and write.
   */
  readonly storedAs?: string;
  /** Field labels of the view → the stored fields they select. */
  readonly fieldLabelMap?: Readonly<Record<string, string>>;
  /**
   * Deprecated versions → the warning every answer to a request for that version carries (a CRD version marked
   * `deprecated`, with its `deprecationWarning` or apiextensions' default text).
   */
  readonly deprecations?: Readonly<Record<string, string>>;
}

/** The kind a resource serves at `version` (`Pod`), with its API version (`v1`). */
export interface ServedKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** `group/plural`: the key objects of a resource are stored under, whatever version is used to reach them. */
export function storageKey(info: Pick<ResourceInfo, 'group' | 'plural'> & { readonly storedAs?: string }): string {
  return info.storedAs ?? `${info.group}/${info.plural}`;
}

/** `v1` for the core group, `apps/v1` otherwise. */
export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** True when `/status` is served for this version. */
export function hasStatus(info: ResourceInfo, version: string): boolean {
  return info.statusVersions.has(version);
}

interface BuiltinSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  status?: boolean;
  generation?: GenerationPolicy;
  nameRule?: NameRule;
  returnDeletedObject?: boolean;
  fieldLabels?: string[];
  categories?: string[];
}

function builtin(spec: BuiltinSpec): ResourceInfo {
  return {
    group: spec.group,
    versions: [spec.version],
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    statusVersions: new Set(spec.status === true ? [spec.version] : []),
    generation: spec.generation ?? 'none',
    nameRule: spec.nameRule ?? 'subdomain',
    allowUnconditionalUpdate: true,
    returnDeletedObject: spec.returnDeletedObject ?? false,
    fieldLabels: spec.fieldLabels ?? [],
    customFieldLabels: (spec.fieldLabels ?? []).length > 0,
    custom: false,
  };
}

const eventFields = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

/** The built-in resources served from start-up. CRDs add to these at runtime. */
export const builtinResources: readonly ResourceInfo[] = [
  builtin({
    group: '',
    version: 'v1',
    plural: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    nameRule: 'label',
    fieldLabels: ['status.phase'],
  }),
  builtin({
    // Pods have generation since PodObservedGenerationTracking (beta 1.34, on by default; the contract suite's 1.36).
    group: '',
    version: 'v1',
    plural: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    status: true,
    generation: 'spec',
    returnDeletedObject: true,
    categories: ['all'],
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    status: true,
    fieldLabels: ['spec.unschedulable'],
  }),
  builtin({ group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] }),
  builtin({ group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, fieldLabels: ['type'] }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    status: true,
    nameRule: 'label1035',
    returnDeletedObject: true,
    categories: ['all'],
    fieldLabels: ['spec.clusterIP', 'spec.type'],
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: eventFields,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    plural: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    status: true,
    generation: 'specAndAnnotations',
    categories: ['all'],
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    plural: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    status: true,
    generation: 'spec',
    categories: ['all'],
    fieldLabels: ['status.replicas'],
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    plural: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    status: true,
    generation: 'spec',
    categories: ['all'],
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    plural: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    status: true,
    generation: 'spec',
    categories: ['all'],
  }),
  builtin({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true }),
  builtin({
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: [
      'reason',
      'type',
      'regarding.kind',
      'regarding.namespace',
      'regarding.name',
      'regarding.uid',
      'regarding.apiVersion',
      'regarding.resourceVersion',
      'regarding.fieldPath',
      'reportingController',
    ],
  }),
  builtin({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    status: true,
    generation: 'spec',
    categories: ['api-extensions'],
  }),
].map((info) => {
  if (info.kind === 'CustomResourceDefinition') return { ...info, allowUnconditionalUpdate: false };
  // One store, two views: events.k8s.io Events are core Events converted (see events.ts).
  if (info.group === 'events.k8s.io') return { ...info, storedAs: '/events', fieldLabelMap: eventsFieldLabels };
  return info;
});

const builtinGroups: ReadonlySet<string> = new Set(builtinResources.map((r) => r.group));

/**
 * True for the core group and the groups built-in resources are served in: kube-apiserver answers an unknown
 * version or resource there with a JSON Status, and everywhere else (groups of custom resources, unknown groups)
 * with a text/plain `404 page not found`.
 */
export function isBuiltinGroup(group: string): boolean {
  return builtinGroups.has(group);
}

/** Verbs advertised in discovery for a main resource. */
export const resourceVerbs: readonly string[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
