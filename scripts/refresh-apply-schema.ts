/**
 * `npm run refresh:apply-schema`: regenerates `src/testing/apiserver/apply/builtin-models.json`, the merge
 * metadata server-side apply needs for every built-in kind the in-memory API server serves, from Kubernetes'
 * published OpenAPI v3 documents (`api/openapi-spec/v3` of k8s.io/kubernetes in the Go module cache).
 *
 * What is kept of each model reachable from a served kind: `type`, `format`, references, `properties`,
 * `additionalProperties`, `items`, `default`, and the `x-kubernetes-*` extensions that decide merging
 * (list type and map keys, map type, patch strategy and merge key, preserve-unknown-fields,
 * group-version-kind). Descriptions and value validations are dropped: apply does not read them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinResources } from '../src/testing/apiserver/registry/resource.js';

const kubernetesVersion = 'v1.36.3';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const output = join(repoRoot, 'src/testing/apiserver/apply/builtin-models.json');

/** The module directory of k8s.io/kubernetes, from the cache (downloaded by `go mod download` when missing). */
function kubernetesDir(): string {
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const cached = join(cache, `k8s.io/kubernetes@${kubernetesVersion}`);
  if (existsSync(cached)) return cached;
  const info = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `k8s.io/kubernetes@${kubernetesVersion}`], { encoding: 'utf8' }),
  ) as { Dir: string };
  return info.Dir;
}

type Model = Record<string, unknown>;

const kept = [
  'type',
  'format',
  'default',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-group-version-kind',
];

/** The model without what apply never reads; references are collected into `refs`. */
function reduce(model: Model, refs: Set<string>): Model {
  const out: Model = {};
  for (const key of kept) if (model[key] !== undefined) out[key] = model[key];
  if (typeof model['$ref'] === 'string') {
    out['$ref'] = model['$ref'];
    refs.add((model['$ref'] as string).split('/').pop()!);
  }
  const allOf = model['allOf'] as Model[] | undefined;
  if (allOf !== undefined) out['allOf'] = allOf.map((m) => reduce(m, refs));
  const properties = model['properties'] as Record<string, Model> | undefined;
  if (properties !== undefined)
    out['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, reduce(v, refs)]));
  const extra = model['additionalProperties'];
  if (typeof extra === 'boolean') out['additionalProperties'] = extra;
  else if (extra !== undefined) out['additionalProperties'] = reduce(extra as Model, refs);
  if (model['items'] !== undefined) out['items'] = reduce(model['items'] as Model, refs);
  return out;
}

function main(): void {
  const specDir = join(kubernetesDir(), 'api/openapi-spec/v3');
  const all: Record<string, Model> = {};
  for (const file of readdirSync(specDir).filter((f) => f.endsWith('_openapi.json'))) {
    const doc = JSON.parse(readFileSync(join(specDir, file), 'utf8')) as {
      components?: { schemas?: Record<string, Model> };
    };
    Object.assign(all, doc.components?.schemas ?? {});
  }
  const wanted = new Set([
    ...builtinResources.map((r) => `${r.group}/${r.versions[0]}/${r.kind}`),
    'autoscaling/v1/Scale',
  ]);
  const roots = Object.entries(all)
    .filter(([, model]) => {
      const gvks =
        (model['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string }[] | undefined) ??
        [];
      return gvks.some((g) => wanted.has(`${g.group}/${g.version}/${g.kind}`));
    })
    .map(([name]) => name);
  const missing = [...wanted].filter(
    (gvk) =>
      !roots.some((name) =>
        (
          (all[name]!['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string }[]) ?? []
        ).some((g) => `${g.group}/${g.version}/${g.kind}` === gvk),
      ),
  );
  if (missing.length > 0) throw new Error(`no OpenAPI model for ${missing.join(', ')}`);
  // ObjectMeta is what custom resources' metadata refers to.
  const queue = [...roots, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
  const models: Record<string, Model> = {};
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (models[name] !== undefined) continue;
    const model = all[name];
    if (model === undefined) throw new Error(`model ${name} is referenced but not defined`);
    const refs = new Set<string>();
    models[name] = reduce(model, refs);
    queue.push(...refs);
  }
  const sorted = Object.fromEntries(
    Object.keys(models)
      .sort()
      .map((k) => [k, models[k]]),
  );
  const document = {
    source: `k8s.io/kubernetes ${kubernetesVersion} api/openapi-spec/v3`,
    generatedBy: 'scripts/refresh-apply-schema.ts',
    models: sorted,
  };
  writeFileSync(output, `${JSON.stringify(document, null, 1)}\n`);
  console.log(`wrote ${Object.keys(sorted).length} models for ${roots.length} kinds to ${output}`);
}

main();
