/**
 * Deep-freezing: the general walk for any object a cache may hold, and a cheaper one for trees fresh from
 * `JSON.parse`.
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
 * - Maps and Sets (which a user `transform` could introduce) are handed to Immer, which also disables their
 *   mutating methods; class instances have their own properties frozen.
 *
 * # Caveats
 * - Built for plain JSON (objects, arrays, primitives), for which the walk is several times faster than Immer's
 *   generic `freeze(value, true)`: it tests a child before descending into it rather than calling itself on every
 *   primitive, and reads keys with `for…in` (JSON objects have no enumerable inherited properties), which allocates
 *   no key array.
 * - An object is taken for plain JSON when it inherits `constructor === Object`: one made with
 *   `Object.create(template)` from a plain template is walked like JSON, so the template's enumerable properties
 *   are frozen along with it.
 */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  walkOrFallBack(value, freezeFast);
  return value;
}

/**
 * Runs a recursive freezing `walk` from `root`; when it gives up too deep, the cycle-safe walk finishes the job (what
 * the recursive one froze is deep-frozen already, so it is skipped).
 */
function walkOrFallBack(root: object, walk: (value: object, depth: number) => void): void {
  try {
    walk(root, 0);
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    freezeSafely(root, new Set());
  }
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
  if (!isJsonObject(value)) {
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
    const plain =
      Array.isArray(value) ||
      Object.getPrototypeOf(value) === Object.prototype ||
      Object.getPrototypeOf(value) === null;
    // JSON-like objects have no enumerable inherited properties; a class instance's belong to its prototype.
    const keys = plain && !Array.isArray(value) ? keysOf(value) : Object.keys(value);
    for (const key of keys) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child) && !seen.has(child))
        stack.push([child, false]);
    }
  }
}

function keysOf(value: object): string[] {
  const keys: string[] = [];
  for (const key in value) keys.push(key);
  return keys;
}

/**
 * Whether `value` (not an array) is walked as a plain JSON object, with `for…in`. The inherited `constructor` answers
 * for JSON objects with one property load, about twice as fast as asking for the prototype; anything else (an own
 * `constructor` field, a null prototype, a class instance) asks for the prototype.
 */
function isJsonObject(value: object): boolean {
  if ((value as { constructor?: unknown }).constructor === Object) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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

/**
 * Deep-freezes a tree of plain objects and arrays, as `JSON.parse` builds it, in place, and returns it.
 *
 * It is {@link deepFreeze} without the questions a JSON tree answers by construction: it does not ask whether a
 * child is frozen already, nor whether an object is a plain one (which, over the many shapes of a Kubernetes object,
 * costs a megamorphic property load per object). On a realistic pod that is about a third of the freeze's cost, and
 * this runs once per watch event.
 *
 * # Guarantees
 * - An object is frozen only after everything below it is, as in {@link deepFreeze}.
 * - Stays correct on inputs that break the precondition in the two ways a caller could plausibly get wrong: a
 *   subtree shared or frozen already is walked again (wasted work, same result), and nesting deeper than
 *   256 levels, or a cycle, hands the rest to {@link deepFreeze}'s cycle-safe walk.
 *
 * # Caveats
 * - Only for plain objects and arrays: a Map or a Set would be frozen without its mutating methods disabled, and
 *   a class instance would have its inherited enumerable properties walked. Anything else goes to {@link deepFreeze}.
 */
export function freezeJsonTree<V>(value: V): V {
  if (typeof value !== 'object' || value === null) return value;
  walkOrFallBack(value, freezeTree);
  return value;
}

function freezeTree(value: object, depth: number): void {
  if (depth > FAST_DEPTH) throw TOO_DEEP;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null) freezeTree(child, depth + 1);
    }
  } else {
    for (const key in value) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) freezeTree(child, depth + 1);
    }
  }
  Object.freeze(value);
}
