/**
 * Path elements of structured-merge-diff field paths: a field name (`f:`), an associative-list key (`k:`), a
 * set value (`v:`) or a list index (`i:`), with SMD's order and its two text forms.
 * @module
 */
import { compareStrings, compareValues, equalValues, goJson, valueToString, type Json } from './value.js';
import { parseJson } from '../../../transport/index.js';

/** One step of a field path. Key fields are sorted by name. */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, Json])[] }
  | { readonly kind: 'value'; readonly value: Json }
  | { readonly kind: 'index'; readonly index: number };

/** A field path from the object root. */
export type Path = readonly PathElement[];

const kindRank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Field elements by name: every walk of every write asks for the same few hundred names. */
const fieldElements = new Map<string, PathElement>();

/** A field-name element (shared and frozen: elements are values). */
export function fieldElement(name: string): PathElement {
  let element = fieldElements.get(name);
  if (element === undefined) {
    // Names are mostly schema fields; the bound keeps arbitrary map keys (labels, data) from growing it forever.
    if (fieldElements.size >= 16384) fieldElements.clear();
    element = Object.freeze({ kind: 'field', name } as const);
    fieldElements.set(name, element);
  }
  return element;
}

/** A key element from `[name, value]` pairs (sorted here). */
export function keyElement(fields: readonly (readonly [string, Json])[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

/**
 * `PathElement.Compare`: fields < keys < values < indexes; fields by name, keys lexically by (name, value),
 * values by `compareValues`, indexes numerically.
 */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return kindRank[a.kind] < kindRank[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const bi = (b as typeof a).index;
      return a.index === bi ? 0 : a.index < bi ? -1 : 1;
    }
    case 'key': {
      const bf = (b as typeof a).fields;
      for (let i = 0; i < Math.min(a.fields.length, bf.length); i++) {
        const n = compareStrings(a.fields[i]![0], bf[i]![0]);
        if (n !== 0) return n;
        const v = compareValues(a.fields[i]![1], bf[i]![1]);
        if (v !== 0) return v;
      }
      return a.fields.length === bf.length ? 0 : a.fields.length < bf.length ? -1 : 1;
    }
  }
}

/** True when both elements are the same step. */
export function equalPathElements(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'field':
      return a.name === (b as typeof a).name;
    case 'index':
      return a.index === (b as typeof a).index;
    case 'value':
      return equalValues(a.value, (b as typeof a).value);
    case 'key': {
      const bf = (b as typeof a).fields;
      return (
        a.fields.length === bf.length && a.fields.every(([n, v], i) => n === bf[i]![0] && equalValues(v, bf[i]![1]))
      );
    }
  }
}

/** `PathElement.String()`: `.name`, `[k=v,k2=v2]`, `[=v]`, `[3]`. */
export function pathElementToString(e: PathElement): string {
  switch (e.kind) {
    case 'field':
      return `.${e.name}`;
    case 'key':
      return `[${e.fields.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(e.value)}]`;
    case 'index':
      return `[${e.index}]`;
  }
}

/** `Path.String()`: the elements' strings joined, e.g. `.spec.containers[name="app"].image`. */
export function pathToString(path: Path): string {
  return path.map(pathElementToString).join('');
}

/** The FieldsV1 key of an element: `f:name`, `k:{"name":"app"}`, `v:"a"`, `i:0`. */
export function serializePathElement(e: PathElement): string {
  switch (e.kind) {
    case 'field':
      return `f:${e.name}`;
    case 'key':
      return `k:{${e.fields.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(e.value)}`;
    case 'index':
      return `i:${e.index}`;
  }
}

/** Why a FieldsV1 key could not be read. */
export class PathElementError extends Error {}

/**
 * Reads a FieldsV1 key back; undefined for an unknown element type (which SMD skips), a {@link PathElementError}
 * for a malformed one.
 */
export function deserializePathElement(text: string): PathElement | undefined {
  if (text.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (text[1] !== ':') throw new PathElementError(`missing colon: ${text}`);
  const rest = text.slice(2);
  switch (text[0]) {
    case 'f':
      return fieldElement(rest);
    case 'v':
      return { kind: 'value', value: parseElementJson(rest) };
    case 'k': {
      const parsed = parseElementJson(rest);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new PathElementError(`key element is not a JSON object: ${rest}`);
      return keyElement(Object.entries(parsed));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest))
        throw new PathElementError(`strconv.Atoi: parsing ${JSON.stringify(rest)}: invalid syntax`);
      return { kind: 'index', index: Number(rest) };
    }
    default:
      return undefined;
  }
}

function parseElementJson(text: string): Json {
  try {
    return parseJson(text) as Json;
  } catch (error) {
    throw new PathElementError((error as Error).message);
  }
}
