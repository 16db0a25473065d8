/**
 * Immer recipes to patch operations: the recipe runs on a draft of the object, and the difference between the
 * object and Immer's result (which shares every part the recipe left alone) becomes the operations of one JSON
 * Patch.
 */
import { Immer, type Draft } from 'immer';
import { diffJson } from './diff.js';
import { isPlainObject, jsonEqual } from './json-value.js';
import type { PathOperation } from './path-operation.js';

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
  /**
   * Operations in application order; empty when the result equals the base as JSON. Besides changes they hold
   * `test`s that a member the base lacks is absent (see `diffJson`).
   */
  readonly operations: readonly PathOperation[];
}

/**
 * Runs `recipe` on a draft of `base` and returns its result with the operations that turn `base` into it.
 *
 * # Guarantees
 * - `base` is never modified (it may be frozen).
 * - Applying `operations` to `base` with RFC 6902 semantics gives `result` as JSON (property-tested).
 * - The operations change only what the recipe changed, **however it changed it**: a draft changed in place, a
 *   map re-assigned by spreading (`annotations = { ...annotations, x: 'y' }`, which Immer alone reports as one
 *   replacement of the whole map), or a new object returned are all compared with the base key by key (see
 *   `diffJson`). Applied to an object holding keys the base lacks (the server's, when the base is an informer's
 *   trimmed copy), they keep those keys; an object or list created where the base has no member fails instead
 *   of replacing one the server has.
 * - A result equal to the base as JSON (no change, or changes that cancel out) gives no operation and returns the
 *   base itself, so the caller sends nothing.
 * - An object property set to `undefined` is removed (JSON has no `undefined`); an array item set to `undefined`
 *   becomes `null`, as `JSON.stringify` writes both.
 *
 * # Caveats
 * - A recipe that throws propagates its error; one that returns Immer's `nothing`, or anything but a plain object,
 *   is a `TypeError`: a patch cannot delete the whole object.
 * - `base` must be a plain JSON object (what the API server and informers give); a class instance is a `TypeError`,
 *   because Immer would hand the recipe the instance itself instead of a draft.
 * - List items are matched as `diffJson` says; a changed item it cannot match is written whole.
 */
export function recipeChanges<T extends object>(base: T, recipe: Recipe<T>): RecipeChanges<T> {
  if (!isPlainObject(base)) {
    throw new TypeError(
      'mutate needs a plain JSON object as its base (as the API server and informers return it), not a class instance',
    );
  }
  // Immer's overloads cannot see through a generic T; the recipe's own type is the contract.
  const result = immer.produce(base as object, recipe as unknown as (draft: object) => void) as unknown;
  if (!isPlainObject(result)) {
    throw new TypeError(
      `mutate: the recipe must leave an object, but produced ${result === undefined ? 'nothing' : typeof result}`,
    );
  }
  const next = result as T;
  if (next === base || jsonEqual(base, next)) return { result: base, operations: [] };
  return { result: next, operations: diffJson(base, next) };
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
