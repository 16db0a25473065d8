/**
 * The untyped object shape the server stores, and small helpers over it.
 * @module
 */

/** Object metadata fields the server reads or writes; everything else passes through untouched. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  [field: string]: unknown;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Store key: `namespace/name` for namespaced objects, `name` for cluster-scoped ones (as in client-go). */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/**
 * Freezes a JSON value in place, recursively, and returns it.
 *
 * # Guarantees
 * - Stored state cannot be mutated by code that receives it (writes throw in strict mode).
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/**
 * A mutable deep copy of a JSON value.
 *
 * # Guarantees
 * - Plain objects and arrays are copied, primitives shared; a value with `toJSON` (a `Date` from client-node's
 *   typed models) is copied as what `JSON.stringify` would write, so stored state stays plain JSON.
 *
 * # Caveats
 * - Hand-rolled rather than `structuredClone`, which costs several times more on small JSON trees (it is the
 *   hottest step of a create). Cycles are not supported: JSON has none.
 */
export function cloneJson<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copy(toJSON.call(value));
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    setMember(out, key, copy((value as Record<string, unknown>)[key]));
  }
  return out;
}

/**
 * `target[key] = value` as an own data member, for plain objects built from JSON.
 *
 * # Guarantees
 * - A `"__proto__"` key (JSON.parse makes it an own key) becomes a member too, where plain assignment would set the
 *   prototype instead; every other key is a plain assignment (an own data property on a plain object).
 */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** True when `value` is a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** RFC 3339 timestamp with second precision, like `metav1.Time`. */
export function timestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Every create stamps one, and most land in the same second as the previous one.
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastStamp;
}

let lastSecond = Number.NaN;
let lastStamp = '';
