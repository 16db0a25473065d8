/**
 * Deep-freezing for the objects entering the store.
 * @internal
 */
import { freeze } from 'immer';

/** Nesting beyond this depth goes to the cycle-safe walk (JSON from an API server is far shallower). */
const FAST_DEPTH = 256;

/** Thrown inside the fast walk when it nests too deep (a cycle, most likely); the cycle-safe walk takes over. */
const TOO_DEEP: unique symbol = Symbol('too deep');

/**
 * Freezes `value` and everything reachable from it, in place; already-frozen subtrees are skipped (so an object
 * that shares parts with a cached one pays only for its new parts).
 *
 * # Guarantees
 * - An object is frozen only after everything below it is: a frozen object is always deep-frozen, even when a
 *   getter threw half-way through an earlier attempt (that attempt leaves the object unfrozen, so a retry throws
 *   again instead of mistaking it for done).
 * - Terminates on cycles and on any nesting depth.
 *
 * # Caveats
 * Objects from the API server are plain JSON (objects, arrays, primitives), for which the walk is several times
 * faster than Immer's generic `freeze(value, true)`: it tests a child before descending into it, rather than
 * calling itself on every primitive, and reads keys with `for…in` (JSON objects have no enumerable inherited
 * properties; class instances get `Object.keys`), which allocates no key array. Maps and Sets (which a user
 * `transform` could introduce) are handed to Immer, which also disables their mutating methods.
 */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  try {
    freezeFast(value, 0);
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    freezeSafely(value, new Set());
  }
  return value;
}

/**
 * Deep-freezes `next`, a new version of `prev`, sharing what did not change: every subtree of `next` that deep-equals
 * its counterpart in `prev` (same key or index) is replaced, in place, by that frozen counterpart, and in the
 * objects that did change, strings equal to `prev`'s are replaced by `prev`'s. Returns `prev` itself when `next`
 * deep-equals it, else `next`, frozen.
 *
 * # Guarantees
 * - The result deep-equals `next` as it was passed in, and is deep-frozen (with {@link deepFreeze}'s guarantees).
 * - What is shared is identical (`===`) between the two versions, so an update keeps in memory only what changed,
 *   and a reader can tell an unchanged part by identity.
 *
 * # Caveats
 * - Only plain JSON (objects with `Object.prototype` or no prototype, arrays, primitives) is compared; anything else
 *   (a class instance, a Map) is frozen as it is, not shared.
 * - Key order is not compared: `{a, b}` shares `{b, a}` (JSON objects are unordered).
 */
export function freezeSharing<V>(next: V, prev: unknown): V {
  if (typeof next !== 'object' || next === null || Object.isFrozen(next)) return next;
  try {
    return settle(next, prev, 0) as V;
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    return deepFreeze(next);
  }
}

function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** {@link freezeSharing} below the top: `next` is an unfrozen object. */
function settle(next: object, prev: unknown, depth: number): object {
  if (depth > FAST_DEPTH) throw TOO_DEEP;
  if (typeof prev !== 'object' || prev === null || !isPlain(next) || !isPlain(prev) || Array.isArray(next) !== Array.isArray(prev)) {
    freezeFast(next, depth);
    return next;
  }
  const target = next as Record<string, unknown>;
  const base = prev as Record<string, unknown>;
  let same = true;
  let count = 0;
  if (Array.isArray(next)) {
    count = next.length;
    same = count === (prev as unknown[]).length;
    for (let i = 0; i < count; i++) same = settleChild(target, base, i, depth) && same;
  } else {
    for (const key in next) {
      count += 1;
      same = settleChild(target, base, key, depth) && same;
    }
    if (same) {
      let prevCount = 0;
      for (const _ in prev) prevCount += 1;
      same = prevCount === count;
    }
  }
  if (same) return prev;
  Object.freeze(next);
  return next;
}

/** Settles `target[key]` against `base[key]`; true when they are equal (and `target[key]` now is `base[key]`). */
function settleChild(target: Record<string, unknown>, base: Record<string | number, unknown>, key: string | number, depth: number): boolean {
  const child = target[key];
  const counterpart = base[key];
  if (typeof child === 'object' && child !== null) {
    if (Object.isFrozen(child)) return child === counterpart;
    const settled = settle(child, counterpart, depth + 1);
    if (settled === child) return false;
    target[key] = settled;
    return true;
  }
  if (child !== counterpart) return false;
  // The same string content: keep one copy.
  if (typeof child === 'string') target[key] = counterpart;
  return true;
}

/** Children first, recursively; gives up with {@link TOO_DEEP} past {@link FAST_DEPTH}. */
function freezeFast(value: object, depth: number): void {
  if (depth > FAST_DEPTH) throw TOO_DEEP;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeFast(child, depth + 1);
    }
    Object.freeze(value);
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    freezeInstance(value, (child) => freezeFast(child, depth + 1));
    return;
  }
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeFast(child, depth + 1);
  }
  Object.freeze(value);
}

/**
 * Children first, without recursion (so any depth fits the stack), with a set of the objects already seen, so a
 * cycle ends where it closes.
 */
function freezeSafely(root: object, seen: Set<object>): void {
  const stack: (readonly [value: object, expanded: boolean])[] = [[root, false]];
  while (stack.length > 0) {
    const [value, expanded] = stack.pop()!;
    if (expanded) {
      Object.freeze(value);
      continue;
    }
    if (Object.isFrozen(value) || seen.has(value)) continue;
    seen.add(value);
    if (value instanceof Map || value instanceof Set) {
      freeze(value, true);
      continue;
    }
    stack.push([value, true]);
    const plain = Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null;
    // JSON-like objects have no enumerable inherited properties; a class instance's belong to its prototype.
    const keys = plain && !Array.isArray(value) ? keysOf(value) : Object.keys(value);
    for (const key of keys) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child) && !seen.has(child)) stack.push([child, false]);
    }
  }
}

function keysOf(value: object): string[] {
  const keys: string[] = [];
  for (const key in value) keys.push(key);
  return keys;
}

/** A class instance, Map or Set: its own properties (inherited enumerable ones belong to its prototype). */
function freezeInstance(value: object, visit: (child: object) => void): void {
  if (value instanceof Map || value instanceof Set) {
    freeze(value, true);
    return;
  }
  for (const key of Object.keys(value)) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) visit(child);
  }
  Object.freeze(value);
}
