/**
 * Immer recipes to patch operations: the recipe runs on a draft of the object, and Immer's patches
 * (`produceWithPatches`) become the operations of one JSON Patch.
 */
import { Immer, enablePatches, type Draft, type Patch } from 'immer';
import { diffJson } from './diff.js';
import { isPlainObject, jsonEqual } from './json-value.js';
import type { PathOperation } from './path-operation.js';

enablePatches();

// A private instance, so no other module's Immer settings reach it. Results are never frozen: the written object
// comes back from the server, and an unchanged result is the caller's own base.
const immer = new Immer({ autoFreeze: false });

/**
 * A change to an object, written as an Immer recipe: change the draft in place, or return a new object (as Immer
 * allows). It must be synchronous and must not keep the draft after it returns.
 */
export type Recipe<T> = (draft: Draft<T>) => Draft<T> | T | void | undefined;

/** What a recipe did to a base: the result, and the operations that turn the base into it. */
export interface RecipeChanges<T> {
  /** The recipe's result; the base itself when nothing changed. */
  readonly result: T;
  /** Operations in application order; empty when the result equals the base as JSON. */
  readonly operations: readonly PathOperation[];
}

/**
 * Runs `recipe` on a draft of `base` and returns its result with the operations that turn `base` into it.
 *
 * # Guarantees
 * - `base` is never modified (it may be frozen).
 * - Applying `operations` to `base` with RFC 6902 semantics gives `result` as JSON (property-tested).
 * - A result equal to the base as JSON (no change, or changes that cancel out) gives no operation and returns the
 *   base itself, so the caller sends nothing.
 * - A recipe that returns a new object is diffed structurally against the base (Immer reports it as one
 *   replacement of the whole document, which JSON Patch cannot send to the API server).
 * - An object property set to `undefined` is removed (JSON has no `undefined`); an array item set to `undefined`
 *   becomes `null`, as `JSON.stringify` writes both.
 *
 * # Caveats
 * - A recipe that throws propagates its error; one that returns Immer's `nothing`, or anything but a plain object,
 *   is a `TypeError`: a patch cannot delete the whole object.
 * - `base` must be a plain JSON object (what the API server and informers give); a class instance is a `TypeError`,
 *   because Immer would hand the recipe the instance itself instead of a draft.
 */
export function recipeChanges<T extends object>(base: T, recipe: Recipe<T>): RecipeChanges<T> {
  if (!isPlainObject(base)) {
    throw new TypeError('mutate needs a plain JSON object as its base (as the API server and informers return it), not a class instance');
  }
  // Immer's overloads cannot see through a generic T; the recipe's own type is the contract.
  const [result, patches] = immer.produceWithPatches(base as object, recipe as unknown as (draft: object) => void) as unknown as [unknown, Patch[]];
  if (!isPlainObject(result)) {
    throw new TypeError(`mutate: the recipe must leave an object, but produced ${result === undefined ? 'nothing' : typeof result}`);
  }
  const next = result as T;
  if (patches.length === 0 || jsonEqual(base, next)) return { result: base, operations: [] };
  if (patches.some((patch) => patch.path.length === 0)) return { result: next, operations: diffJson(base, next) };
  const operations = patches.flatMap(fromImmerPatch).filter((operation) => !replacesWithEqual(base, operation));
  return { result: next, operations };
}

/**
 * A `replace` whose value equals what the base holds at its path: Immer reports one for a subtree rebuilt with
 * equal content (`draft.data = { ...draft.data }`), and sending it would turn an unchanged part into a write.
 * Dropping it is safe because Immer's operations touch disjoint paths, and an array's replaced indexes refer to
 * the same positions in the base (its additions and removals come after them, at its end).
 */
function replacesWithEqual(base: object, operation: PathOperation): boolean {
  if (operation.op !== 'replace') return false;
  let node: unknown = base;
  for (const key of operation.path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string | number, unknown>)[key];
  }
  return jsonEqual(node, operation.value);
}

/** Immer's `add`/`replace`/`remove` as a path operation, with JSON's meaning of `undefined`. */
function fromImmerPatch(patch: Patch): PathOperation[] {
  const path = patch.path;
  if (patch.op === 'remove') return [{ op: 'remove', path }];
  if (patch.value !== undefined) return [{ op: patch.op, path, value: patch.value }];
  if (typeof path[path.length - 1] === 'number') return [{ op: patch.op, path, value: null }];
  // An object property set to undefined: absent in JSON, so it goes (replace) or never comes (add).
  return patch.op === 'replace' ? [{ op: 'remove', path }] : [];
}

/** Operations split by where they must be sent: `status` to the status subresource, the rest to the resource. */
export interface SplitOperations {
  readonly main: readonly PathOperation[];
  readonly status: readonly PathOperation[];
}

/** Splits operations by their first path key: `status` or anything else. */
export function splitStatus(operations: readonly PathOperation[]): SplitOperations {
  const main: PathOperation[] = [];
  const status: PathOperation[] = [];
  for (const operation of operations) (operation.path[0] === 'status' ? status : main).push(operation);
  return { main, status };
}
