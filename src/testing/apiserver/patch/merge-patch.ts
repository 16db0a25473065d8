/** JSON Merge Patch (RFC 7386), plus the stricter input rules kube-apiserver applies to it. */
import { badRequest } from './errors.js';
import { assertJson, clone, goJsonType, isObject, setOwn, type JsonObject } from './json.js';
import { strictDecode, type PatchDecodeOptions } from './options.js';

/** Merges into `owned`, a private copy of the target, so each input node is copied exactly once. */
function mergeInto(owned: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(owned) ? owned : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergeInto(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/**
 * Applies an RFC 7386 JSON merge patch and returns a new value.
 *
 * # Guarantees
 * - Pure: never mutates `target` or `patch`; the result shares no objects or arrays with either.
 * - RFC 7386 §2 exactly: object patches merge recursively and `null` members delete; any non-object patch
 *   (array, scalar, `null`) replaces the whole target. Arrays are always replaced, never merged.
 * - Inputs that are not JSON (undefined, functions, NaN, cycles) are a 400 {@link PatchError}.
 *
 * # Caveats
 * - kube-apiserver is stricter about the patch's top level; use {@link applyKubeMergePatch} for a PATCH verb.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  assertJson(target, 'the object');
  assertJson(patch, 'the merge patch');
  return mergeInto(clone(target), patch);
}

/**
 * `application/merge-patch+json` as kube-apiserver applies it (patch.go `applyJSPatch`, evanphx/json-patch v4
 * `MergePatch`).
 *
 * # Guarantees
 * - With strict decoding (the default; `fieldValidation` absent means `Warn`) a patch that is not an object or
 *   `null` is a 400 `error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}`.
 * - A `null` patch (and, with `fieldValidation: 'Ignore'`, a string/number/boolean one) is a 400
 *   `Invalid JSON Patch` (`ErrBadJSONPatch`). With `Ignore`, an array patch replaces the object; the API server's
 *   decode of that result is what rejects it.
 * - Otherwise identical to {@link applyMergePatch}.
 *
 * # Caveats
 * - evanphx also drops `null` elements inside replaced arrays; that quirk is not reproduced.
 */
export function applyKubeMergePatch(target: unknown, patch: unknown, options?: PatchDecodeOptions): unknown {
  if (strictDecode(options) && patch !== null && !isObject(patch)) {
    throw badRequest(
      `error decoding patch: json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`,
    );
  }
  if (!isObject(patch) && !Array.isArray(patch)) throw badRequest('Invalid JSON Patch');
  return applyMergePatch(target, patch);
}
