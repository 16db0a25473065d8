/**
 * Discovery documents (legacy, non-aggregated format) and the version/health endpoints.
 * @module
 */
import { createHash } from 'node:crypto';
import { groupVersion, hasStatus, type ResourceInfo, type ResourceRegistry, resourceVerbs } from '../registry/index.js';
import { scalableKinds } from './scale.js';

/** The version the server reports at `/version` (matches the kubectl on the test machine's minor). */
export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-rxkube',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

function hash(text: string): string {
  return createHash('sha256').update(text).digest('base64').slice(0, 11);
}

/** `APIResourceList` for one group/version, including `<plural>/status` entries. */
export function resourceList(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const r of registry.inGroupVersion(group, version)) {
    resources.push(resourceEntry(r, group, version));
    if (hasStatus(r, version)) {
      resources.push({
        name: `${r.plural}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
    if (!r.custom && scalableKinds.has(r.kind)) {
      resources.push({
        name: `${r.plural}/scale`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
    if (!r.custom && r.kind === 'Namespace') {
      resources.push({
        name: 'namespaces/finalize',
        singularName: '',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['update'],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
}

function resourceEntry(r: ResourceInfo, group: string, version: string): Record<string, unknown> {
  return {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: resourceVerbs,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length > 0 ? { categories: r.categories } : {}),
    storageVersionHash: hash(`${group}/${version}/${r.kind}`),
  };
}

/** `/api`: the legacy core group's versions. */
export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(name: string, versions: readonly string[], preferred: string): Record<string, unknown> {
  const entries = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: entries, preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred } };
}

/** `/apis`: every named group. */
export function groupList(registry: ResourceRegistry): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => groupDoc(g.name, g.versions, g.preferred)),
  };
}

/** `/apis/<group>`, or undefined when the group is not served. */
export function groupInfo(registry: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const found = registry.groups().find((g) => g.name === group);
  return found === undefined
    ? undefined
    : { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(found.name, found.versions, found.preferred) };
}
