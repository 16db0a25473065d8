/**
 * A minimal OpenAPI v3 surface: just enough for kubectl to see that every resource's PATCH accepts
 * `fieldValidation`, so it validates server-side instead of downloading schemas. No object schemas are served.
 * @module
 */
import { createHash } from 'node:crypto';
import { groupVersion, type ResourceRegistry } from '../registry/index.js';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function servedGroupVersions(registry: ResourceRegistry): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of registry.all())
    for (const v of r.versions) seen.set(groupVersion(r.group, v), { group: r.group, version: v });
  return [...seen.values()];
}

/** `/openapi/v3`: the index of per-group-version documents. */
export function openApiRoot(registry: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { group, version } of servedGroupVersions(registry)) {
    const doc = JSON.stringify(openApiGroupVersion(registry, group, version));
    const hash = createHash('sha512').update(doc).digest('hex').slice(0, 32).toUpperCase();
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  return { paths };
}

/** `/openapi/v3/<api/v1 | apis/g/v>`: PATCH operations with their GVK and the `fieldValidation` parameter. */
export function openApiGroupVersion(
  registry: ResourceRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const resources = registry.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const r of resources) {
    const base = `/${gvPath(group, version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group, version, kind: r.kind },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0-rxkube' },
    paths,
    components: { schemas: {} },
  };
}
