/** Small JSON-value helpers shared by the patch algorithms. */
import { setMember } from '../machinery/index.js';
import { badRequest } from './errors.js';

/** A JSON object with string keys. */
export type JsonObject = Record<string, unknown>;

/** True for plain JSON objects (not arrays, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON values; object key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Deep copy of a JSON value, so results never alias (and so never let callers mutate) the inputs. */
export function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const k of Object.keys(value)) setOwn(out, k, clone(value[k]));
    return out as T;
  }
  return value;
}

/**
 * Assigns as an own data property, so a key named `__proto__` is data, not a prototype switch (a plain assignment
 * otherwise: targets are plain objects this module built).
 */
export const setOwn: (target: JsonObject, key: string, value: unknown) => void = setMember;

/** Go's JSON type word for a value, as `encoding/json` error messages print it. */
export function goJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * Rejects anything JSON cannot carry (undefined, functions, symbols, bigint, non-finite numbers, cycles) with a
 * 400, so a programming error never turns into a silently different document.
 */
export function assertJson(value: unknown, what: string, seen: Set<object> = new Set()): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw badRequest(`${what} is not valid JSON: ${value} is not a finite number`);
      return;
    case 'object':
      if (value === null) return;
      if (seen.has(value)) throw badRequest(`${what} is not valid JSON: it contains a cycle`);
      seen.add(value);
      for (const v of Array.isArray(value) ? value : Object.values(value)) assertJson(v, what, seen);
      seen.delete(value);
      return;
    default:
      throw badRequest(`${what} is not valid JSON: it contains a ${typeof value}`);
  }
}
