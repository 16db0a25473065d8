/**
 * CustomResourceDefinition handling: validating a CRD, deriving its status, and the resources it serves.
 * @module
 */
import { type FieldError, fieldInvalid, fieldRequired, isPlainObject, type KubeObject } from '../machinery/index.js';
import type { ResourceInfo } from './resource.js';

/** The finalizer the real apiextensions-apiserver puts on every CRD so it can delete the instances first. */
export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  status: boolean;
  deprecated: boolean;
  deprecationWarning: string | undefined;
}

function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function names(crd: KubeObject): CrdNames {
  const spec = isPlainObject(crd['spec']) ? crd['spec'] : {};
  const n = isPlainObject(spec['names']) ? spec['names'] : {};
  const kind = asString(n['kind']);
  return {
    plural: asString(n['plural']),
    singular: asString(n['singular']) || kind.toLowerCase(),
    kind,
    listKind: asString(n['listKind']) || `${kind}List`,
    shortNames: stringList(n['shortNames']),
    categories: stringList(n['categories']),
  };
}

function versions(crd: KubeObject): CrdVersion[] {
  const spec = isPlainObject(crd['spec']) ? crd['spec'] : {};
  const list = Array.isArray(spec['versions']) ? spec['versions'] : [];
  return list.filter(isPlainObject).map((v) => ({
    name: asString(v['name']),
    served: v['served'] === true,
    storage: v['storage'] === true,
    status: isPlainObject(v['subresources']) && isPlainObject(v['subresources']['status']),
    deprecated: v['deprecated'] === true,
    deprecationWarning: typeof v['deprecationWarning'] === 'string' ? v['deprecationWarning'] : undefined,
  }));
}

const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const versionPattern = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/**
 * Validates the parts of a CRD the server relies on, with the real field paths.
 *
 * # Caveats
 * - Schemas (`openAPIV3Schema`) are accepted but not validated, and instances are not validated against them.
 */
export function validateCrd(crd: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isPlainObject(crd['spec']) ? crd['spec'] : undefined;
  if (spec === undefined) return [fieldRequired('spec')];
  const group = asString(spec['group']);
  const n = names(crd);
  if (group === '') errors.push(fieldRequired('spec.group'));
  else if (!group.includes('.'))
    errors.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  if (n.plural === '') errors.push(fieldRequired('spec.names.plural'));
  else if (!dns1035.test(n.plural))
    errors.push(
      fieldInvalid(
        'spec.names.plural',
        n.plural,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
      ),
    );
  if (n.kind === '') errors.push(fieldRequired('spec.names.kind'));
  const scope = asString(spec['scope']);
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    errors.push({
      field: 'spec.scope',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(scope)}: supported values: "Cluster", "Namespaced"`,
    });
  }
  const vs = versions(crd);
  if (vs.length === 0)
    errors.push(fieldInvalid('spec.versions', null, 'must have exactly one version marked as storage version'));
  else if (vs.filter((v) => v.storage).length !== 1)
    errors.push(
      fieldInvalid(
        'spec.versions',
        vs.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    );
  vs.forEach((v, i) => {
    if (!versionPattern.test(v.name) && !dns1035.test(v.name))
      errors.push(fieldInvalid(`spec.versions[${i}].name`, v.name, 'must be a valid version'));
  });
  const expected = `${n.plural}.${group}`;
  if (crd.metadata.name !== expected) {
    errors.push(fieldInvalid('metadata.name', crd.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }
  return errors;
}

/** The status a freshly accepted CRD gets: NamesAccepted and Established true, acceptedNames and storedVersions set. */
export function crdStatus(crd: KubeObject, now: string, previous?: unknown): Record<string, unknown> {
  const n = names(crd);
  const old = isPlainObject(previous) ? previous : {};
  const stored = new Set(stringList(old['storedVersions']));
  for (const v of versions(crd)) if (v.storage) stored.add(v.name);
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: {
      plural: n.plural,
      singular: n.singular,
      kind: n.kind,
      listKind: n.listKind,
      ...(n.shortNames.length > 0 ? { shortNames: n.shortNames } : {}),
      ...(n.categories.length > 0 ? { categories: n.categories } : {}),
    },
    storedVersions: [...stored],
  };
}

/**
 * apiextensions-apiserver's warning for a deprecated version without its own `deprecationWarning`:
 * `<group>/<version> <Kind> is deprecated`, followed by `; use <group>/<newest> <Kind>` when a served, not deprecated
 * version newer than it exists (the newest of them, in Kubernetes' version order).
 */
function defaultDeprecationWarning(
  group: string,
  kind: string,
  deprecated: string,
  all: readonly CrdVersion[],
): string {
  const message = `${group}/${deprecated} ${kind} is deprecated`;
  const newer = all
    .filter((v) => v.served && !v.deprecated && compareKubeVersions(deprecated, v.name) < 0)
    .map((v) => v.name);
  if (newer.length === 0) return message;
  newer.sort((a, b) => compareKubeVersions(b, a));
  return `${message}; use ${group}/${newer[0]} ${kind}`;
}

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const versionLevel: Readonly<Record<string, number>> = { alpha: 0, beta: 1, '': 2 };

/**
 * Kubernetes' version order (apimachinery's `CompareKubeAwareVersionStrings`): GA above beta above alpha, then by
 * major and minor number; a name of another form sorts below every Kubernetes version, and those among themselves
 * in reverse lexical order. Negative when `a` is older.
 */
export function compareKubeVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = kubeVersion.exec(a);
  const pb = kubeVersion.exec(b);
  if (pa === null && pb === null) return b < a ? -1 : 1;
  if (pa === null) return -1;
  if (pb === null) return 1;
  const levelA = versionLevel[pa[2] ?? '']!;
  const levelB = versionLevel[pb[2] ?? '']!;
  if (levelA !== levelB) return levelA - levelB;
  if (pa[1] !== pb[1]) return Number(pa[1]) - Number(pb[1]);
  return Number(pa[3] ?? 0) - Number(pb[3] ?? 0);
}

/** The resource a CRD serves (its served versions, storage version first), or none when nothing is served. */
export function crdResources(crd: KubeObject): ResourceInfo[] {
  const spec = isPlainObject(crd['spec']) ? crd['spec'] : {};
  const n = names(crd);
  const all = versions(crd);
  const vs = all.filter((v) => v.served);
  if (vs.length === 0) return [];
  vs.sort((a, b) => Number(b.storage) - Number(a.storage));
  const group = asString(spec['group']);
  const deprecations: Record<string, string> = {};
  for (const v of vs)
    if (v.deprecated)
      deprecations[v.name] = v.deprecationWarning ?? defaultDeprecationWarning(group, n.kind, v.name, all);
  return [
    {
      group,
      ...(Object.keys(deprecations).length > 0 ? { deprecations } : {}),
      versions: vs.map((v) => v.name),
      plural: n.plural,
      singular: n.singular,
      kind: n.kind,
      listKind: n.listKind,
      namespaced: spec['scope'] === 'Namespaced',
      shortNames: n.shortNames,
      categories: n.categories,
      statusVersions: new Set(vs.filter((v) => v.status).map((v) => v.name)),
      generation: 'nonMetadata',
      nameRule: 'subdomain',
      allowUnconditionalUpdate: false,
      returnDeletedObject: false,
      fieldLabels: [],
      customFieldLabels: false,
      custom: true,
    },
  ];
}
