/**
 * Deep-freezing for the objects entering the store.
 * @internal
 */
import { freeze } from 'immer';

/**
 * Freezes `value` and everything reachable from it, in place; already-frozen subtrees are skipped (so an object
 * that shares parts with a cached one pays only for its new parts).
 *
 * Objects from the API server are plain JSON (objects, arrays, primitives), for which this walk is several times
 * faster than Immer's generic `freeze(value, true)`: it tests a child before descending into it, rather than
 * calling itself on every primitive, and reads keys with `for…in` (JSON objects have no enumerable inherited
 * properties; class instances get `Object.keys`), which allocates no key array. Maps and Sets (which a user `transform` could introduce) are handed to
 * Immer, which also disables their mutating methods.
 */
export function deepFreeze<V>(value: V): V {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) freezeFrom(value);
  return value;
}

function freezeFrom(value: object): void {
  if (Array.isArray(value)) {
    Object.freeze(value);
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeFrom(child);
    }
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof Map || value instanceof Set) {
      freeze(value, true);
      return;
    }
    // A class instance may inherit enumerable properties, which belong to its prototype, not to it.
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    return;
  }
  Object.freeze(value);
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeFrom(child);
  }
}
