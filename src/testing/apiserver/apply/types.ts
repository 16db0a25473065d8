/**
 * Which merge schema an object is typed with: built-in kinds from the table generated out of Kubernetes'
 * OpenAPI (`builtin-models.json`, refreshed by `scripts/refresh-apply-schema.ts`), custom resources from their
 * CRD's structural schema; plus the fields each strategy resets.
 * @module
 */
import builtinDocument from './builtin-models.json' with { type: 'json' };
import { FieldSet } from './fieldset.js';
import { fieldElement } from './path.js';
import { parse, schemaFromOpenApi, type OpenApiSchema } from './openapi.js';
import { Schema, type Atom, type TypedSchema } from './schema.js';
import type { VersionedTypes } from './updater.js';
import type { Json } from './value.js';

const models = (builtinDocument as unknown as { models: Record<string, OpenApiSchema> }).models;
let builtin: { schema: Schema; roots: Map<string, string> } | undefined;

function builtinSchema(): { schema: Schema; roots: Map<string, string> } {
  if (builtin === undefined) {
    const roots = new Map<string, string>();
    for (const [name, model] of Object.entries(models)) {
      for (const gvk of model['x-kubernetes-group-version-kind'] ?? [])
        roots.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, name);
    }
    builtin = { schema: schemaFromOpenApi(models), roots };
  }
  return builtin;
}

const builtinTyped = new Map<string, TypedSchema | undefined>();

/**
 * The typed schema of a built-in kind at `group/version`, or undefined when the table has no such kind.
 *
 * # Guarantees
 * - The same object for the same kind every time, so per-schema caches hold.
 */
export function builtinTypes(group: string, version: string, kind: string): TypedSchema | undefined {
  const gvk = `${group}/${version}/${kind}`;
  if (builtinTyped.has(gvk)) return builtinTyped.get(gvk);
  const { schema, roots } = builtinSchema();
  const root = roots.get(gvk);
  const typed = root === undefined ? undefined : { schema, root: { named: root } };
  builtinTyped.set(gvk, typed);
  return typed;
}

const objectMetaRef = { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };
const perCrd = new WeakMap<object, Map<string, TypedSchema>>();

/**
 * The typed schema of a custom resource at `version`, built as apiextensions-apiserver builds it for apply: the
 * version's `openAPIV3Schema` with `apiVersion`, `kind` and `metadata` (ObjectMeta) added.
 *
 * # Guarantees
 * - Cached per stored CRD object (stored objects are immutable), so a CRD update takes effect at once.
 * - A version without a schema is typed as the deduced type (maps granular, lists atomic).
 */
export function customResourceTypes(crd: object, version: string): TypedSchema | undefined {
  let cache = perCrd.get(crd);
  if (cache === undefined) {
    cache = new Map();
    perCrd.set(crd, cache);
  }
  const cached = cache.get(version);
  if (cached !== undefined) return cached;
  const spec = (
    crd as {
      spec?: {
        versions?: { name?: string; schema?: { openAPIV3Schema?: OpenApiSchema } }[];
        preserveUnknownFields?: boolean;
      };
    }
  ).spec;
  const served = spec?.versions?.find((v) => v.name === version);
  if (served === undefined) return undefined;
  const root = served.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const withMeta: OpenApiSchema = {
    ...root,
    type: 'object',
    properties: {
      ...(root.properties ?? {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: objectMetaRef,
    },
  };
  const name = `custom-resource/${version}`;
  const atom: Atom = parse(withMeta, spec?.preserveUnknownFields === true, name);
  const types = new Map(builtinSchema().schema.types);
  types.set(name, atom);
  const typed = { schema: new Schema(types), root: { named: name } };
  cache.set(version, typed);
  return typed;
}

/** What the write's strategy resets, by kind and subresource (each registry's `GetResetFields`). */
export interface ResetRule {
  readonly custom: boolean;
  readonly kind: string;
  readonly hasStatus: boolean;
  readonly subresource: 'status' | 'scale' | undefined;
}

const paths = (...items: string[][]): FieldSet => FieldSet.of(items.map((p) => p.map(fieldElement)));

/**
 * The fields a strategy resets, which nobody may own through that endpoint.
 *
 * # Guarantees
 * - Main endpoint of a kind with a status subresource: `status`. `/status`: `spec`, plus `metadata.labels` for
 *   Deployments, `metadata.deletionTimestamp` and `metadata.ownerReferences` for Pods, and all of `metadata`
 *   for custom resources (as the 1.36 registries declare them).
 */
export function resetFields(rule: ResetRule): FieldSet | undefined {
  const key = `${rule.custom}/${rule.kind}/${rule.hasStatus}/${rule.subresource ?? ''}`;
  if (!resetByRule.has(key)) resetByRule.set(key, resetFor(rule));
  return resetByRule.get(key);
}

/** Reset sets by rule: a few kinds and endpoints, each built once (sets are immutable). */
const resetByRule = new Map<string, FieldSet | undefined>();

function resetFor(rule: ResetRule): FieldSet | undefined {
  if (rule.subresource === 'status') {
    if (rule.custom) return paths(['metadata'], ['spec']);
    if (rule.kind === 'Deployment') return paths(['spec'], ['metadata', 'labels']);
    if (rule.kind === 'Pod') return paths(['spec'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences']);
    return paths(['spec']);
  }
  if (rule.subresource === undefined && rule.hasStatus) return paths(['status']);
  return undefined;
}

/** Types, resets and conversions of one kind for one endpoint, in the shape the updater reads. */
export function versionedTypes(
  typesAt: (version: string) => TypedSchema | undefined,
  reset: FieldSet | undefined,
  convert: (value: Json | undefined, version: string) => Json | undefined = (value) => value,
): VersionedTypes {
  return { at: typesAt, resetFields: () => reset, convert };
}
