/**
 * Deep-freezing for the objects entering the store.
 * @internal
 */
import { freeze } from 'immer';

/**
 * Freezes `value` and everything reachable from it, in place; already-frozen subtrees are skipped.
 *
 * Objects from the API server are plain JSON (objects, arrays, primitives), for which this walk is about three times
 * faster than Immer's generic `freeze(value, true)`; Maps and Sets (which a user `transform` could introduce) are
 * handed to Immer, which also disables their mutating methods.
 */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map || value instanceof Set) return freeze(value, true);
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
