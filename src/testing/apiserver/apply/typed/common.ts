/**
 * What every typed walk shares: choosing the atom a value takes, turning list items into path elements, and
 * SMD's validation errors with their path prefixes.
 * @module
 */
import { keyElement, pathElementToString, serializePathElement, type PathElement } from '../path.js';
import type { Atom, ListType, MapType, Schema, TypeRef } from '../schema.js';
import { goJson, isMap, type Json, type JsonMap } from '../value.js';

/** One validation error; `path` is SMD's path string (`.spec.containers[name="a"].image`). */
export interface TypedError {
  readonly path: string;
  readonly message: string;
}

/** A failed typed operation: the errors joined as SMD's `ValidationErrors.Error()` joins them. */
export class TypedValueError extends Error {
  constructor(readonly errors: readonly TypedError[]) {
    super(errors.length === 1 ? format(errors[0]!) : ['errors:', ...errors.map((e) => `  ${format(e)}`)].join('\n'));
    this.name = 'TypedValueError';
  }
}

function format(e: TypedError): string {
  return e.path === '' ? e.message : `${e.path}: ${e.message}`;
}

/** The atom `ref` names in `schema`, or a schema error. */
export function resolveAtom(schema: Schema, ref: TypeRef): Atom {
  const atom = schema.resolve(ref);
  if (atom === undefined)
    throw new TypedValueError([
      { path: '', message: `schema error: no type found matching: ${ref.named ?? 'inlined type'}` },
    ]);
  return atom;
}

/** Members of an atom, as bits: what `deduceAtom` keeps of it for a value. */
const mapBit = 1;
const scalarBit = 2;
const listBit = 4;

/**
 * `deduceAtom`, as the members it keeps: the one member that fits the value, or every member of the atom when
 * none fits or there is no value. Two values deduce to the same atom (SMD's `Atom.Equals`) when the bits are equal.
 */
export function deducedMembers(atom: Atom, value: Json | undefined): number {
  if (value !== undefined && value !== null) {
    if (typeof value !== 'object') {
      if (atom.scalar !== undefined) return scalarBit;
    } else if (Array.isArray(value)) {
      if (atom.list !== undefined) return listBit;
    } else if (atom.map !== undefined) return mapBit;
  }
  return (
    (atom.map !== undefined ? mapBit : 0) |
    (atom.scalar !== undefined ? scalarBit : 0) |
    (atom.list !== undefined ? listBit : 0)
  );
}

/** The shape a walk takes for deduced `members`. */
export type Shape = 'map' | 'scalar' | 'list';

/**
 * `handleAtom`'s choice among deduced `members`: map, then scalar, then list; none is a schema error.
 *
 * # Caveats
 * - A plain switch in the walks instead of a handler object of closures: the walks run on every write, once per
 *   node of the object, and a closure per node costs more than the walk itself.
 */
export function shapeOf(members: number): Shape {
  if ((members & mapBit) !== 0) return 'map';
  if ((members & scalarBit) !== 0) return 'scalar';
  if ((members & listBit) !== 0) return 'list';
  throw new TypedValueError([{ path: '', message: 'schema error: invalid atom: inlined' }]);
}

/** The type of field `key` of a map: its declared field type, else the element type (undefined: not declared). */
export function fieldType(type: MapType, key: string): TypeRef | undefined {
  return type.fields.get(key)?.type ?? type.elementType;
}

/**
 * `listItemToPathElement`: the key (`k:`) of an item of an associative list with keys, or the value (`v:`) of an
 * item of a set. Throws a plain `Error` with SMD's message when the item cannot be indexed.
 */
export function listItemElement(schema: Schema, list: ListType, item: Json): PathElement {
  if (list.relationship !== 'associative') throw new Error('invalid indexing of non-associative list');
  if (list.keys.length > 0) {
    if (item === null) throw new Error('associative list with keys may not have a null element');
    if (!isMap(item)) throw new Error('associative list with keys may not have non-map elements');
    const fields: [string, Json][] = [];
    for (const name of list.keys) {
      if (Object.hasOwn(item, name)) fields.push([name, item[name]!]);
      else {
        const fallback = keyDefault(schema, list, name);
        if (fallback !== undefined && fallback !== null) fields.push([name, fallback as Json]);
      }
    }
    if (fields.length === 0) {
      throw new Error(
        `associative list with keys has an element that omits all key fields ${goQuoted(list.keys)} (and doesn't have default values for any key fields)`,
      );
    }
    return keyElement(fields);
  }
  if (isMap(item)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new Error('not supported: associative list with lists as elements');
  if (item === null) throw new Error("associative list without keys has an element that's an explicit null");
  return { kind: 'value', value: item };
}

/** A list item with its path element and that element's FieldsV1 key (`serializePathElement`), its identity. */
export interface KeyedItem {
  readonly element: PathElement;
  readonly id: string;
}

/** {@link listItemElement}, or undefined for an item that cannot be keyed. */
export function listItemElementOrNone(schema: Schema, list: ListType, item: Json): PathElement | undefined {
  try {
    return listItemElement(schema, list, item);
  } catch {
    return undefined;
  }
}

/** Key and value elements by FieldsV1 key: equal keys are equal elements, and objects of one shape repeat them. */
const keyedElements = new Map<string, PathElement>();

/**
 * {@link listItemElement} with the element's FieldsV1 key, or undefined for an item that cannot be keyed.
 *
 * # Guarantees
 * - The element is shared by every item with the same key (elements are values), so what is derived from it
 *   (its FieldsV1 text) is derived once.
 */
export function listItemId(schema: Schema, list: ListType, item: Json): KeyedItem | undefined {
  // The common case, one key field given as a string (`name`), keyed without building the element first.
  if (list.relationship === 'associative' && list.keys.length === 1 && isMap(item)) {
    const name = list.keys[0]!;
    const value = Object.hasOwn(item, name) ? item[name] : undefined;
    if (typeof value === 'string') {
      const id = `k:{${goJson(name)}:${goJson(value)}}`;
      const shared = keyedElements.get(id);
      if (shared !== undefined) return { element: shared, id };
    }
  }
  const element = listItemElementOrNone(schema, list, item);
  if (element === undefined) return undefined;
  const id = serializePathElement(element);
  let shared = keyedElements.get(id);
  if (shared === undefined) {
    // Keys are mostly container, port and condition names; the bound keeps arbitrary ones from growing it forever.
    if (keyedElements.size >= 16384) keyedElements.clear();
    shared = element;
    keyedElements.set(id, shared);
  }
  return { element: shared, id };
}

function keyDefault(schema: Schema, list: ListType, name: string): unknown {
  const atom = schema.resolve(list.elementType);
  if (atom === undefined) throw new Error(`couldn't find default value for ${name}: invalid elementType for list`);
  if (atom.map === undefined)
    throw new Error(`couldn't find default value for ${name}: associative list may not have non-map types`);
  return atom.map.fields.get(name)?.default;
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
function goQuoted(items: readonly string[]): string {
  return `[${items.map((i) => JSON.stringify(i)).join(' ')}]`;
}

/** `PathElement.String` for error prefixes. */
export const elementText = pathElementToString;

/** A map value as a map, or undefined for null/absent (a non-map is also undefined: SMD ignores that error). */
export function asMap(value: Json | undefined): JsonMap | undefined {
  return isMap(value) ? value : undefined;
}

/** True when a map has no own key (without building the key list). */
export function isEmptyMap(map: JsonMap): boolean {
  for (const key in map) if (Object.hasOwn(map, key)) return false;
  return true;
}

/** A list value as a list, or undefined for null/absent/non-list. */
export function asList(value: Json | undefined): Json[] | undefined {
  return Array.isArray(value) ? value : undefined;
}
