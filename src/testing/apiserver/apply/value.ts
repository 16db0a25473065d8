/**
 * JSON values as structured-merge-diff sees them: a total order, equality, and the two text forms it prints
 * (Go's JSON encoding inside FieldsV1 keys, and `value.ToString` inside conflict paths).
 * @module
 */

/** A JSON value as parsed; `undefined` stands for "absent" (Go's nil `value.Value`), `null` for JSON null. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonMap = { [key: string]: Json };

/** True for a JSON object (not null, not an array). */
export function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for the scalars SMD treats as leaves: numbers, strings and booleans. */
export function isScalar(value: unknown): value is number | string | boolean {
  return typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean';
}

/** SMD's type rank: numbers < strings < booleans < lists < maps < null. */
function rank(value: Json): number {
  switch (typeof value) {
    case 'number':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    default:
      return value === null ? 5 : Array.isArray(value) ? 3 : 4;
  }
}

/** Byte-wise comparison of strings as Go's `strings.Compare` does on UTF-8 (code point order). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length < b.length ? -1 : 1;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  // Below the surrogates UTF-16 code units order as code points (and as UTF-8 bytes); the first difference decides.
  if (ca < 0xd800 && cb < 0xd800) return ca < cb ? -1 : 1;
  return compareCodePoints(a, b);
}

function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    if (ca > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * `value.Compare`: a total order over JSON values.
 *
 * # Guarantees
 * - Numbers compare numerically (ints and floats together), strings by code point, `false < true`, lists and
 *   maps lexically (maps by sorted key, then value), as structured-merge-diff orders set and key elements.
 */
export function compareValues(a: Json, b: Json): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as Json[];
      const lb = b as Json[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i]!, lb[i]!);
        if (c !== 0) return c;
      }
      return la.length === lb.length ? 0 : la.length < lb.length ? -1 : 1;
    }
    case 4:
      return compareMaps(a as JsonMap, b as JsonMap);
    default:
      return 0;
  }
}

function compareMaps(a: JsonMap, b: JsonMap): number {
  // MapCompare: zip the union of keys in lexical order; the first difference decides.
  const la = Object.keys(a).length;
  const lb = Object.keys(b).length;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareStrings);
  let i = 0;
  for (const key of keys) {
    let c: number;
    if (i === la) c = -1;
    else if (i === lb) c = 1;
    else if (!Object.hasOwn(a, key)) c = 1;
    else if (!Object.hasOwn(b, key)) c = -1;
    else c = compareValues(a[key]!, b[key]!);
    i++;
    if (c !== 0) return c;
  }
  return 0;
}

/** Structural equality of JSON values (key order ignored). */
export function equalValues(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const lb = b as Json[];
    return a.length === lb.length && a.every((v, i) => equalValues(v, lb[i]));
  }
  const ma = a as JsonMap;
  const mb = b as JsonMap;
  const keys = Object.keys(ma);
  if (keys.length !== Object.keys(mb).length) return false;
  return keys.every((k) => Object.hasOwn(mb, k) && equalValues(ma[k], mb[k]));
}

const htmlEscapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON text as Go's `encoding/json` (and json-iterator's standard-library mode) writes it: map keys sorted,
 * `<`, `>`, `&`, U+2028 and U+2029 escaped.
 */
export function goJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isMap(value)) {
    return `{${Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${goString(k)}:${goJson(value[k]!)}`)
      .join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value);
}

const htmlEscaped = /[<>&\u2028\u2029]/;

function goString(text: string): string {
  const quoted = JSON.stringify(text);
  return htmlEscaped.test(quoted) ? quoted.replace(/[<>&\u2028\u2029]/g, (c) => htmlEscapes[c]!) : quoted;
}

/** `value.ToString`: how a value prints inside a conflict path (`[name="nginx"]`, `[=80]`). */
export function valueToString(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(valueToString).join(',')}]`;
  return Object.keys(value)
    .map((k) => `${k}=${valueToString(value[k]!)}`)
    .join('');
}
