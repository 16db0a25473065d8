/**
 * OpenAPI → merge schema, as kube-openapi's `schemaconv.ToSchemaFromOpenAPI` converts the models kube-apiserver
 * (built-in kinds) and apiextensions-apiserver (CRDs) hand to server-side apply.
 * @module
 */
import {
  deducedName,
  Schema,
  untypedName,
  type Atom,
  type ElementRelationship,
  type ListType,
  type MapType,
  type ScalarKind,
  type StructField,
  type TypeRef,
} from './schema.js';

/** The subset of an OpenAPI v3 schema object this conversion reads. */
export interface OpenApiSchema {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly $ref?: string;
  readonly allOf?: readonly OpenApiSchema[];
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly default?: unknown;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: string;
  readonly 'x-kubernetes-patch-strategy'?: string;
  readonly 'x-kubernetes-patch-merge-key'?: string;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-group-version-kind'?: readonly { group: string; version: string; kind: string }[];
}

const quantityName = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const rawExtensionName = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const objectMetaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** A model name from a `$ref` (`#/components/schemas/io.k8s.api.core.v1.Pod` → `io.k8s.api.core.v1.Pod`). */
export function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/**
 * Converts named OpenAPI models into a merge schema.
 *
 * # Guarantees
 * - Same rules as `schemaconv`: `x-kubernetes-list-type` atomic/set/map (with `x-kubernetes-list-map-keys`),
 *   else the legacy `x-kubernetes-patch-strategy: merge` (+ `patch-merge-key`), else atomic; `x-kubernetes-map-type`
 *   atomic/granular on maps and on references; objects without properties (or preserving unknown fields) take
 *   the deduced element type; `int-or-string` and other string formats are untyped scalars; Quantity is an
 *   untyped scalar and RawExtension untyped.
 * - Unknown extension values throw, naming the model, instead of guessing.
 */
export function schemaFromOpenApi(models: Readonly<Record<string, OpenApiSchema>>): Schema {
  const types = new Map<string, Atom>();
  for (const [name, model] of Object.entries(models)) {
    if (model.$ref !== undefined) continue;
    if (name === quantityName) types.set(name, { scalar: 'untyped' });
    else if (name === rawExtensionName) types.set(name, { scalar: 'untyped', list: untypedList, map: untypedMap });
    else types.set(name, parse(model, model['x-kubernetes-preserve-unknown-fields'] === true, name));
  }
  return new Schema(types);
}

const untypedList: ListType = { elementType: { named: untypedName }, relationship: 'atomic', keys: [] };
const untypedMap: MapType = { fields: new Map(), elementType: { named: untypedName }, relationship: 'atomic' };

/** Converts one (possibly inline) schema; `preserve` is inherited from the enclosing models. */
export function parse(model: OpenApiSchema, preserve: boolean, where: string): Atom {
  const keep = preserve || model['x-kubernetes-preserve-unknown-fields'] === true;
  const type = Array.isArray(model.type) ? (model.type[0] ?? '') : ((model.type as string | undefined) ?? '');
  switch (type) {
    case '':
      return { scalar: 'untyped', list: parseList(model, keep, where), map: parseObject(model, keep, where) };
    case 'object':
      return { map: parseObject(model, keep, where) };
    case 'array':
      return { list: parseList(model, keep, where) };
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'string':
      return { scalar: (model.format ?? '') === '' || model.format === 'byte' ? 'string' : ('untyped' as ScalarKind) };
    default:
      throw new Error(`${where}: unrecognized type: '${type}'`);
  }
}

function reference(model: OpenApiSchema, preserve: boolean, where: string): TypeRef {
  const ref = model.$ref ?? (model.allOf?.length === 1 ? model.allOf[0]!.$ref : undefined);
  if (ref !== undefined) {
    const relationship = mapRelationship(model, where);
    return relationship === undefined ? { named: refName(ref) } : { named: refName(ref), relationship };
  }
  return { inlined: parse(model, preserve, `inlined in ${where}`) };
}

function parseObject(model: OpenApiSchema, preserve: boolean, where: string): MapType {
  const fields = new Map<string, StructField>();
  for (const [name, member] of Object.entries(model.properties ?? {})) {
    fields.set(name, {
      type: reference(member, preserve, where),
      ...(member.default !== undefined ? { default: member.default } : {}),
    });
  }
  // An embedded resource always has TypeMeta and ObjectMeta, whatever its schema lists (apiextensions'
  // addEmbeddedProperties sets them).
  if (model['x-kubernetes-embedded-resource'] === true) {
    fields.set('apiVersion', { type: { inlined: { scalar: 'string' } } });
    fields.set('kind', { type: { inlined: { scalar: 'string' } } });
    fields.set('metadata', { type: { named: objectMetaName } });
  }
  const extra = model.additionalProperties;
  let elementType: TypeRef | undefined;
  if (extra === undefined) {
    if (preserve || fields.size === 0) elementType = { named: deducedName };
  } else if (typeof extra === 'object') elementType = reference(extra, preserve, where);
  else if (extra) elementType = { named: deducedName };
  const relationship = mapRelationship(model, where);
  return {
    fields,
    ...(elementType !== undefined ? { elementType } : {}),
    ...(relationship !== undefined ? { relationship } : {}),
  };
}

function parseList(model: OpenApiSchema, preserve: boolean, where: string): ListType {
  const [relationship, keys] = listRelationship(model, where);
  const elementType: TypeRef =
    model.items !== undefined ? reference(model.items, preserve, where) : { named: untypedName };
  return { elementType, relationship, keys };
}

function listRelationship(model: OpenApiSchema, where: string): [ElementRelationship, string[]] {
  const listType = model['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (listType === 'atomic') return ['atomic', []];
    if (listType === 'set') return ['associative', []];
    if (listType === 'map') {
      const keys = model['x-kubernetes-list-map-keys'];
      if (keys === undefined) throw new Error(`${where}: missing map keys`);
      return ['associative', [...keys]];
    }
    throw new Error(`${where}: unknown list type ${listType}`);
  }
  const strategy = model['x-kubernetes-patch-strategy'];
  if (strategy !== undefined) {
    if (strategy === 'merge' || strategy === 'merge,retainKeys') {
      const key = model['x-kubernetes-patch-merge-key'];
      return ['associative', key !== undefined ? [key] : []];
    }
    if (strategy === 'retainKeys') return ['atomic', []];
    throw new Error(`${where}: unknown patch strategy ${strategy}`);
  }
  return ['atomic', []];
}

function mapRelationship(model: OpenApiSchema, where: string): ElementRelationship | undefined {
  const mapType = model['x-kubernetes-map-type'];
  if (mapType === undefined) return undefined;
  if (mapType === 'atomic') return 'atomic';
  if (mapType === 'granular') return 'separable';
  throw new Error(`${where}: unknown map type ${mapType}`);
}
