/**
 * The request side of writes with a field manager: the apply body (YAML or JSON, parsed by a real YAML library),
 * the `fieldManager`/`force` options with kube-apiserver's validation, and the manager name derived from the
 * User-Agent when none is given.
 * @module
 */
import {
  badRequest,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  invalid,
} from '../machinery/index.js';
import type { JsonMap } from './value.js';
import { expectBackslashKeys, parseJson } from '../../../transport/index.js';
import { yamlPeer } from '../../peers.js';

/** Longest field manager name (`FieldManagerMaxLength`). */
export const fieldManagerMaxLength = 128;

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * `prefixFromUserAgent`: the User-Agent up to its first `/`, without unprintable characters, cut to 128 bytes
 * (`kubectl/v1.32.0 (linux/amd64) kubernetes/abc` → `kubectl`).
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const char of prefix) {
    if (!printable.test(char)) continue;
    const size = Buffer.byteLength(char);
    if (bytes + size > fieldManagerMaxLength) break;
    out += char;
    bytes += size;
  }
  return out;
}

function managerErrors(manager: string): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(manager) > fieldManagerMaxLength) {
    errors.push({
      field: 'fieldManager',
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${fieldManagerMaxLength} bytes`,
    });
  }
  let position = 0;
  for (const char of manager) {
    if (!printable.test(char)) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errors.push(fieldInvalid('fieldManager', manager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(char);
  }
  return errors;
}

/** What a write asked for: the manager (from `fieldManager`, else the User-Agent) and `force`. */
export interface WriteOptions {
  readonly manager: string;
  readonly force: boolean;
}

/**
 * Reads and validates `fieldManager` and `force` for a write, as `ValidateCreateOptions`/`ValidateUpdateOptions`/
 * `ValidatePatchOptions` do.
 *
 * # Guarantees
 * - Apply without `fieldManager` is 422 `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is
 *   required for apply patch`; `force` on any other patch is 422 `force: Forbidden: may not be specified for
 *   non-apply patch`; a manager longer than 128 bytes or with unprintable characters is 422; a `force` that is not
 *   a boolean is 400.
 */
export function writeOptions(
  query: URLSearchParams,
  verb: 'create' | 'update' | 'patch',
  apply: boolean,
  userAgent: string | undefined,
): WriteOptions {
  const manager = query.get('fieldManager') ?? '';
  const rawForce = query.get('force');
  let force: boolean | undefined;
  if (rawForce !== null) {
    const normalized = rawForce.toLowerCase();
    if (['1', 't', 'true'].includes(normalized)) force = true;
    else if (['0', 'f', 'false', ''].includes(normalized)) force = false;
    else throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(rawForce)}: invalid syntax`);
  }
  const errors: FieldError[] = [];
  if (verb === 'patch') {
    if (apply && manager === '') errors.push(fieldRequired('fieldManager', 'is required for apply patch'));
    if (!apply && force !== undefined) errors.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
  }
  errors.push(...managerErrors(manager));
  const kind = verb === 'create' ? 'CreateOptions' : verb === 'update' ? 'UpdateOptions' : 'PatchOptions';
  if (errors.length > 0) throw invalid('meta.k8s.io', kind, '', errors);
  return { manager: manager !== '' ? manager : managerFromUserAgent(userAgent), force: force === true };
}

/**
 * Parses an `application/apply-patch+yaml` body (JSON is YAML too) into the object to apply.
 *
 * # Guarantees
 * - YAML 1.1 scalars, as the Go YAML decoder reads them; an empty body is an empty object.
 * - Anything that is not a mapping is a 400 `error decoding YAML: ...`, nothing is applied.
 */
export function parseApplyBody(raw: string): JsonMap {
  const json = plainJsonObject(raw);
  if (json !== undefined) return json;
  // The YAML parser builds objects by property writes, outside parseJson, and may throw before the round trip
  // below would show parseJson a backslash key; a YAML text can hold one only if it holds a backslash.
  if (raw.includes('\\')) expectBackslashKeys();
  const yaml = yamlPeer();
  let parsed: unknown;
  try {
    parsed = yaml.parse(raw, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    throw badRequest(`error decoding YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    const type = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${type} into Go value of type map[string]interface {}`,
    );
  }
  return parseJson(JSON.stringify(parsed)) as JsonMap;
}

/** Nesting the YAML parser is known to read as JSON.parse does (it runs out of stack in the high hundreds). */
const jsonFastPathDepth = 100;

/**
 * The apply body read by `JSON.parse` when that is certain to give what the YAML parser gives: most clients send
 * JSON, which YAML 1.1 reads the same way, at a fraction of the cost.
 *
 * # Guarantees
 * - Undefined (the YAML parser decides) unless the body is one JSON object, nested at most
 *   {@link jsonFastPathDepth} deep, whose objects have no duplicate keys (YAML refuses those, JSON keeps the last).
 * - The result is normalised by the same JSON round trip as a YAML result.
 *
 * # Caveats
 * - Duplicates are found by counting: every `:` outside a string of valid JSON ends a key, so fewer keys than
 *   colons means a key repeated. This scan only guards the choice; JSON.parse does the reading.
 */
function plainJsonObject(raw: string): JsonMap | undefined {
  const start = raw.search(/[^ \t\n\r]/);
  if (start < 0 || raw.charCodeAt(start) !== 0x7b /* { */) return undefined;
  let parsed: unknown;
  try {
    parsed = parseJson(raw);
  } catch {
    return undefined;
  }
  let colons = 0;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = start; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a /* : */) colons++;
    else if (c === 0x7b || c === 0x5b /* { [ */) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d /* } ] */) depth--;
  }
  if (deepest > jsonFastPathDepth || countKeys(parsed) !== colons) return undefined;
  return parseJson(JSON.stringify(parsed)) as JsonMap;
}

function countKeys(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) keys += countKeys(item);
    return keys;
  }
  for (const key of Object.keys(value)) keys += 1 + countKeys((value as Record<string, unknown>)[key]);
  return keys;
}
