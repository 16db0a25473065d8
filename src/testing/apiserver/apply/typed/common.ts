/**
 * What every typed walk shares: choosing the atom a value takes, turning list items into path elements, and
 * SMD's validation errors with their path prefixes.
 * @module
 */
import { keyElement, pathElementToString, type PathElement } from '../path.js';
import type { Atom, ListType, MapType, Schema, TypeRef } from '../schema.js';
import { isMap, type Json, type JsonMap } from '../value.js';

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

/** Prefixes every error's path with `prefix`. */
export function prefixed(errors: TypedError[], prefix: string): TypedError[] {
  return errors.map((e) => ({ path: prefix + e.path, message: e.message }));
}

/** The atom `ref` names in `schema`, or a schema error. */
export function resolveAtom(schema: Schema, ref: TypeRef): Atom {
  const atom = schema.resolve(ref);
  if (atom === undefined) throw new TypedValueError([{ path: '', message: `schema error: no type found matching: ${ref.named ?? 'inlined type'}` }]);
  return atom;
}

/** `deduceAtom`: of a multi-shape atom, the shape that fits the value (unchanged when none fits or no value). */
export function deduceAtom(atom: Atom, value: Json | undefined): Atom {
  if (value === undefined || value === null) return atom;
  if (typeof value !== 'object') return atom.scalar !== undefined ? { scalar: atom.scalar } : atom;
  if (Array.isArray(value)) return atom.list !== undefined ? { list: atom.list } : atom;
  return atom.map !== undefined ? { map: atom.map } : atom;
}

/** True when two deduced atoms are the same shape object (SMD's `Atom.Equals` on the chosen member). */
export function sameAtom(a: Atom, b: Atom): boolean {
  return a.map === b.map && a.list === b.list && a.scalar === b.scalar;
}

/** What a walk does with each shape. */
export interface AtomHandler<T> {
  map(type: MapType): T;
  scalar(): T;
  list(type: ListType): T;
}

/** `handleAtom`: map, then scalar, then list; an atom with none is a schema error. */
export function handleAtom<T>(atom: Atom, handler: AtomHandler<T>): T {
  if (atom.map !== undefined) return handler.map(atom.map);
  if (atom.scalar !== undefined) return handler.scalar();
  if (atom.list !== undefined) return handler.list(atom.list);
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
      throw new Error(`associative list with keys has an element that omits all key fields ${goQuoted(list.keys)} (and doesn't have default values for any key fields)`);
    }
    return keyElement(fields);
  }
  if (isMap(item)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new Error('not supported: associative list with lists as elements');
  if (item === null) throw new Error("associative list without keys has an element that's an explicit null");
  return { kind: 'value', value: item };
}

function keyDefault(schema: Schema, list: ListType, name: string): unknown {
  const atom = schema.resolve(list.elementType);
  if (atom === undefined) throw new Error(`couldn't find default value for ${name}: invalid elementType for list`);
  if (atom.map === undefined) throw new Error(`couldn't find default value for ${name}: associative list may not have non-map types`);
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

/** A list value as a list, or undefined for null/absent/non-list. */
export function asList(value: Json | undefined): Json[] | undefined {
  return Array.isArray(value) ? value : undefined;
}
