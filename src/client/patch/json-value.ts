/**
 * JSON value helpers with JSON's own semantics: an object property whose value is `undefined` does not exist, as
 * `JSON.stringify` leaves it out.
 */

/** A plain object: `{}` or `Object.create(null)`, not an array, a Map or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Deep equality as JSON sees it.
 *
 * # Guarantees
 * - Identical references are equal at once, so comparing two structurally shared trees (an Immer result and its
 *   base) walks only the parts that differ.
 * - An object property holding `undefined` counts as absent; in arrays `undefined` equals `null`, as
 *   `JSON.stringify` writes it.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let leftCount = 0;
  for (const key of Object.keys(left)) {
    if (left[key] === undefined) continue;
    leftCount++;
    if (!Object.hasOwn(right, key) || !jsonEqual(left[key], right[key])) return false;
  }
  let rightCount = 0;
  for (const key of Object.keys(right)) if (right[key] !== undefined) rightCount++;
  return leftCount === rightCount;
}
