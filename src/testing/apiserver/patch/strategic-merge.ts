/** Strategic merge patch (`application/strategic-merge-patch+json`), the subset kubectl uses on built-in kinds. */
import { GENERIC_422_MESSAGE, badRequest, invalid } from './errors.js';
import { assertJson, clone, deepEqual, goJsonType, isObject, setOwn, type JsonObject } from './json.js';
import { DEFAULT_STRATEGIC_MERGE_KEYS, PRIMITIVE_MERGE, STRATEGIC_MERGE_KEYS } from './strategic-merge-keys.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

type Table = Readonly<Record<string, string>>;

/**
 * An error `interpretStrategicMergePatchError` does not map: the real server answers 500 with the Go text as
 * message. PatchError has no 500, so it becomes a 422 that keeps that message.
 */
const unmappedGoError = (text: string) => invalid(text, text);

/** Go's `%v` of a decoded JSON value, used in the messages Go's strategicpatch package produces. */
function goValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isObject(value)) {
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goValue(value[k])}`)
      .join(' ')}]`;
  }
  return value === null ? '<nil>' : String(value);
}

/** Merges into `original`, which must be the caller's private copy (never an input), and returns it. */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, path: string, table: Table): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    const { [DIRECTIVE]: _ignored, ...rest } = patch;
    // handleDirectiveInMergeMap: replace keeps the patch's own content; delete leaves an empty map.
    if (directive === 'replace') return clone(rest);
    if (directive === 'delete') return {};
    throw unmappedGoError(`unknown patch type: ${goValue(directive)} in map: ${goValue(patch)}`);
  }
  const result: JsonObject = original ?? {};
  // Deletions first, so `$deleteFromPrimitiveList/x` never removes what the same patch adds to `x`.
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(SET_ELEMENT_ORDER) && !Array.isArray(value))
      throw badRequest('invalid patch format of setElementOrder list');
    if (!key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    if (!Array.isArray(value)) throw badRequest('invalid patch format of primitive list');
    const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    const current = Object.hasOwn(result, field) ? result[field] : undefined;
    if (Array.isArray(current))
      setOwn(
        result,
        field,
        current.filter((item) => !value.some((d) => deepEqual(d, item))),
      );
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST))
      continue;
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = Object.hasOwn(result, key) ? result[key] : undefined;
    setOwn(result, key, mergeValue(current, value, path === '' ? key : `${path}.${key}`, table));
  }
  if (Object.hasOwn(patch, RETAIN_KEYS)) applyRetainKeys(result, patch, patch[RETAIN_KEYS]);
  return result;
}

/** `$retainKeys`: the map keeps only the listed fields; the patch may not set a field outside the list. */
function applyRetainKeys(result: JsonObject, patch: JsonObject, retain: unknown): void {
  if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) {
    throw badRequest('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(patch)) {
    if (key.startsWith('$') || patch[key] === null) continue;
    if (!retain.includes(key)) {
      throw invalid(GENERIC_422_MESSAGE, "patch content doesn't match retainKeys list");
    }
  }
  for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
}

function mergeValue(current: unknown, value: unknown, path: string, table: Table): unknown {
  if (isObject(value)) return mergeMap(isObject(current) ? current : undefined, value, path, table);
  if (!Array.isArray(value)) return clone(value);
  const strategy = Object.hasOwn(table, path) ? table[path] : undefined;
  if (strategy === undefined) return clone(value);
  if (strategy === PRIMITIVE_MERGE) {
    const merged = Array.isArray(current) ? current : [];
    for (const item of value) if (!merged.some((m) => deepEqual(m, item))) merged.push(clone(item));
    return merged;
  }
  return mergeList(Array.isArray(current) ? current : [], value, path, strategy, table);
}

/** Lists of objects merged by `mergeKey`: matching elements merge, new ones append, `$patch` directives apply. */
function mergeList(
  current: unknown[],
  patch: readonly unknown[],
  path: string,
  mergeKey: string,
  table: Table,
): unknown[] {
  const isReplace = (e: unknown): boolean => isObject(e) && e[DIRECTIVE] === 'replace' && Object.keys(e).length === 1;
  if (patch.some(isReplace)) {
    return patch
      .filter((e) => !isReplace(e))
      .map((e) => (isObject(e) ? mergeMap(undefined, e, path, table) : clone(e)));
  }
  const result = current;
  for (const element of patch) {
    if (!isObject(element)) {
      throw unmappedGoError(`merging an object in ${path} with a ${goJsonType(element)}: expected a map`);
    }
    if (!Object.hasOwn(element, mergeKey)) {
      throw unmappedGoError(`map: ${goValue(element)} does not contain declared merge key: ${mergeKey}`);
    }
    const keyValue = element[mergeKey];
    const sameKey = (e: unknown): boolean => isObject(e) && deepEqual(e[mergeKey], keyValue);
    if (element[DIRECTIVE] === 'delete') {
      for (let i = result.length - 1; i >= 0; i--) if (sameKey(result[i])) result.splice(i, 1);
      continue;
    }
    const index = result.findIndex(sameKey);
    if (index >= 0) result[index] = mergeMap(result[index] as JsonObject, element, path, table);
    else result.push(mergeMap(undefined, element, path, table));
  }
  return result;
}

/**
 * Applies a strategic merge patch to an object of the given built-in `kind`, returning a new object.
 *
 * # Guarantees
 * - Pure: inputs are never mutated; the result shares nothing with them.
 * - Maps merge recursively; `null` deletes a field. Lists listed in {@link STRATEGIC_MERGE_KEYS} for `kind` merge
 *   by their key (matching elements merge recursively, unmatched ones append in patch order after the existing
 *   ones) or, for primitive merge lists such as `metadata.finalizers`, union without duplicates. All other lists
 *   are replaced atomically.
 * - Directives: `$patch: replace` / `$patch: delete` on a map (replace with the patch's content / clear to `{}`,
 *   as Go's `handleDirectiveInMergeMap`); `{ "<key>": v, "$patch": "delete" }` in a merge list removes that
 *   element; a `{ "$patch": "replace" }` element replaces the whole list with the other elements;
 *   `$deleteFromPrimitiveList/<field>` removes scalars; `$retainKeys` keeps only the listed fields.
 * - A patch that is not a JSON object is a 400 BadRequest with Go's decode message
 *   (`json: cannot unmarshal array into Go value of type map[string]interface {}`).
 * - Content outside `$retainKeys` is a 422 Invalid with the generic message, as `interpretStrategicMergePatchError`
 *   maps `ErrPatchContentNotMatchRetainKeys`. A list element without its merge key or an unknown `$patch` value
 *   is a 422 whose message and `detail` are Go's text, e.g.
 *   `map: map[image:nginx] does not contain declared merge key: name`.
 *
 * # Caveats
 * - `$setElementOrder/<field>` is accepted and ignored: merged lists keep existing order, new elements last.
 * - A missing merge key or unknown `$patch` is a 500 in kube-apiserver (not an error
 *   `interpretStrategicMergePatchError` maps); {@link PatchError} has no 500, so it is reported as 422.
 * - Kinds without an entry (custom resources) merge maps and replace every list except the ObjectMeta ones;
 *   the real server rejects SMP on custom resources with 415 (check with `supportsStrategicMerge`).
 * - No schema: a field's type is not checked, and defaulting/validation are the API server's job.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, kind: string): unknown {
  assertJson(target, 'the object');
  if (!isObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
  }
  assertJson(patch, 'the strategic merge patch');
  const table = Object.hasOwn(STRATEGIC_MERGE_KEYS, kind) ? STRATEGIC_MERGE_KEYS[kind]! : DEFAULT_STRATEGIC_MERGE_KEYS;
  return mergeMap(isObject(target) ? clone(target) : undefined, patch, '', table);
}
