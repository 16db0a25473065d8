/** JSON Patch (RFC 6902) with the semantics and error texts of kube-apiserver (evanphx/json-patch v4). */
import { GENERIC_422_MESSAGE, badRequest, invalid } from './errors.js';
import { assertJson, clone, deepEqual, goJsonType, isObject, setOwn, type JsonObject } from './json.js';
import { strictDecode, type PatchDecodeOptions } from './options.js';

const MISSING = 'missing value'; // evanphx ErrMissing
const INVALID_INDEX = 'invalid index referenced'; // evanphx ErrInvalidIndex
const TEST_FAILED = 'test failed'; // evanphx ErrTestFailed

/** An apply-time failure; its message is the evanphx error text (the 422 `detail`). */
class OpError extends Error {}
const fail = (message: string): never => {
  throw new OpError(message);
};

type Container = JsonObject | unknown[];

function decodeKey(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** Go's strconv.Atoi acceptance (sign, decimal digits), or undefined. */
function atoi(key: string): number | undefined {
  return /^[+-]?\d+$/.test(key) ? Number(key) : undefined;
}

function atoiOrFail(key: string): number {
  return atoi(key) ?? fail(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
}

/** Negative indices count from the end, as evanphx v4 allows (`SupportNegativeIndices`). */
function normalizeIndex(idx: number, length: number): number {
  if (idx >= length || idx < -length) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  return idx < 0 ? idx + length : idx;
}

/**
 * evanphx `findObject`: walks every segment but the last. The leading segment is skipped unread, so the
 * root pointer `""` has no container and `a/b` behaves like `/b`, exactly as in the Go library.
 */
function findContainer(doc: Container, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let con: unknown = doc;
  for (const raw of split.slice(1, -1)) {
    const part = decodeKey(raw);
    let next: unknown;
    if (Array.isArray(con)) {
      const idx = atoi(part);
      if (idx === undefined || idx < 0 || idx >= con.length) return undefined;
      next = con[idx];
    } else if (isObject(con)) {
      next = Object.hasOwn(con, part) ? con[part] : undefined;
    }
    if (!Array.isArray(next) && !isObject(next)) return undefined;
    con = next;
  }
  return { con: con as Container, key: decodeKey(split[split.length - 1]!) };
}

/** `get`: objects answer undefined for a missing member (no error, as in v4); arrays validate the index. */
function get(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return Object.hasOwn(con, key) ? con[key] : undefined;
  return con[normalizeIndex(atoiOrFail(key), con.length)];
}

function add(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) return setOwn(con, key, value);
  if (key === '-') {
    con.push(value);
    return;
  }
  const idx = atoi(key);
  if (idx === undefined)
    fail(`value was not a proper array index: '${key}': strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  con.splice(normalizeIndex(idx!, con.length + 1), 0, value);
}

function remove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) fail(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return;
  }
  con.splice(normalizeIndex(atoiOrFail(key), con.length), 1);
}

/** Runs `fn`, prefixing any evanphx error with Go's `errors.Wrapf` context. */
function wrap<T>(context: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof OpError) throw new OpError(`${context}: ${err.message}`);
    throw err;
  }
}

function stringField(op: JsonObject, field: 'path' | 'from', kind: string): string {
  const value = op[field];
  if (typeof value !== 'string') {
    fail(
      value === undefined
        ? `${kind} operation failed to decode ${field}: operation missing ${field} field: ${MISSING}`
        : `${kind} operation failed to decode ${field}: json: cannot unmarshal ${goJsonType(value)} into Go value of type string`,
    );
  }
  return value as string;
}

function locate(doc: Container, path: string, message: string): { con: Container; key: string } {
  return findContainer(doc, path) ?? fail(`${message}: ${MISSING}`);
}

function applyOne(doc: Container, op: JsonObject): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const value = Object.hasOwn(op, 'value') ? clone(op.value) : null;
  switch (kind) {
    case 'add': {
      const path = stringField(op, 'path', kind);
      const { con, key } = locate(doc, path, `add operation does not apply: doc is missing path: "${path}"`);
      return wrap(`error in add for path: '${path}'`, () => add(con, key, value));
    }
    case 'remove': {
      const path = stringField(op, 'path', kind);
      const { con, key } = locate(doc, path, `remove operation does not apply: doc is missing path: "${path}"`);
      return wrap(`error in remove for path: '${path}'`, () => remove(con, key));
    }
    case 'replace': {
      const path = stringField(op, 'path', kind);
      const { con, key } = locate(doc, path, `replace operation does not apply: doc is missing path: ${path}`);
      // v4 quirk kept for fidelity: replacing a missing object member adds it; only bad array indices fail.
      const idx = Array.isArray(con)
        ? wrap(`replace operation does not apply: doc is missing key: ${path}`, () =>
            normalizeIndex(atoiOrFail(key), con.length),
          )
        : undefined;
      if (idx === undefined) setOwn(con as JsonObject, key, value);
      else (con as unknown[])[idx] = value;
      return;
    }
    case 'move':
    case 'copy': {
      const from = stringField(op, 'from', kind);
      const src = locate(doc, from, `${kind} operation does not apply: doc is missing from path: ${from}`);
      const context = kind === 'move' ? `error in move for path: '${src.key}'` : `error in copy for from: '${from}'`;
      const moved = wrap(context, () => {
        if (!Array.isArray(src.con) && !Object.hasOwn(src.con, src.key)) {
          fail(
            kind === 'move'
              ? `Unable to remove nonexistent key: ${src.key}: ${MISSING}`
              : `unable to get nonexistent key: ${src.key}: ${MISSING}`,
          );
        }
        const v = get(src.con, src.key);
        if (kind === 'move') remove(src.con, src.key);
        return kind === 'move' ? v : clone(v);
      });
      const path = stringField(op, 'path', kind);
      const dst = locate(doc, path, `${kind} operation does not apply: doc is missing destination path: ${path}`);
      return wrap(kind === 'move' ? `error in move for path: '${path}'` : 'error while adding value during copy', () =>
        add(dst.con, dst.key, moved),
      );
    }
    case 'test': {
      const path = stringField(op, 'path', kind);
      const { con, key } = locate(doc, path, `test operation does not apply: is missing path: ${path}`);
      const actual = wrap(`error in test for path: '${path}'`, () => get(con, key));
      // v4: a missing member equals an explicit `"value": null`.
      const expected = Object.hasOwn(op, 'value') ? op.value : undefined;
      const ok = actual === undefined ? expected === null : expected !== undefined && deepEqual(actual, expected);
      if (!ok) fail(`testing value ${path} failed: ${TEST_FAILED}`);
      return;
    }
    default:
      fail(`Unexpected kind: ${kind}`);
  }
}

/**
 * The 400s kube-apiserver gives before applying anything: with strict decoding (the default `Warn`) the body is
 * first decoded into `[]handlers.jsonPatchOp`, otherwise straight into evanphx's `jsonpatch.Patch`.
 */
function checkPatchShape(operations: unknown, strict: boolean): void {
  const prefix = strict ? 'error decoding patch: ' : '';
  const listType = strict ? '[]handlers.jsonPatchOp' : 'jsonpatch.Patch';
  const opType = strict ? 'handlers.jsonPatchOp' : 'jsonpatch.Operation';
  if (!Array.isArray(operations)) {
    throw badRequest(`${prefix}json: cannot unmarshal ${goJsonType(operations)} into Go value of type ${listType}`);
  }
  for (const op of operations) {
    if (op !== null && !isObject(op)) {
      throw badRequest(`${prefix}json: cannot unmarshal ${goJsonType(op)} into Go value of type ${opType}`);
    }
    if (!strict || op === null) continue;
    for (const field of ['op', 'path', 'from'] as const) {
      const value = op[field];
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw badRequest(
          `${prefix}json: cannot unmarshal ${goJsonType(value)} into Go struct field jsonPatchOp.${field} of type string`,
        );
      }
    }
  }
}

/**
 * Applies an RFC 6902 JSON patch (`application/json-patch+json`) the way kube-apiserver does, returning a new
 * value.
 *
 * # Guarantees
 * - Pure: inputs are never mutated; the result shares nothing with them. Operations apply in order and
 *   atomically: any failure throws and no partial result escapes.
 * - All six operations, `-` (append), `~0`/`~1` unescaping, negative array indices (evanphx v4 allows them).
 * - Errors match `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go` `applyJSPatch`:
 *   - the patch does not decode as a list of operation objects: **400 BadRequest**, message Go's decode error.
 *     By default (`fieldValidation` absent = `Warn`) that is the strict pre-decode's
 *     `error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`
 *     (also for a non-string `op`/`path`/`from`); with `fieldValidation: 'Ignore'` it is `jsonpatch.DecodePatch`'s
 *     `json: cannot unmarshal object into Go value of type jsonpatch.Patch`;
 *   - any apply failure (failed `test`, missing path, bad index, unknown `op`, missing `path`/`from`):
 *     **422 Invalid** with message `the server rejected our request due to an error in our request`
 *     (`errors.NewGenericServerResponse(422, ...)`; a real server's body has `details: {}`), and the evanphx
 *     text as {@link PatchError.detail}, e.g. `testing value /a failed: test failed` or
 *     `add operation does not apply: doc is missing path: "/a/b": missing value`.
 *   Sources: kube-apiserver patch.go, evanphx/json-patch v4 patch.go (vendored as gopkg.in/evanphx/json-patch.v4).
 *
 * # Caveats (all deliberate, copying evanphx v4 rather than the RFC)
 * - The root pointer `""` cannot be targeted (422), and the first segment of a path is never read.
 * - `replace` of a missing object member adds it; `test` of a missing member with `"value": null` passes.
 * - `add`/`replace` without `value` use `null`. `null` as the whole patch is an empty patch.
 * - The 10,000-operation limit (413) is the API server's to enforce.
 */
export function applyJsonPatch(target: unknown, operations: unknown, options?: PatchDecodeOptions): unknown {
  assertJson(target, 'the object');
  if (operations === null) return clone(target);
  checkPatchShape(operations, strictDecode(options));
  assertJson(operations, 'the JSON patch');
  if (!isObject(target) && !Array.isArray(target)) {
    throw invalid(
      GENERIC_422_MESSAGE,
      `json: cannot unmarshal ${goJsonType(target)} into Go value of type jsonpatch.partialDoc`,
    );
  }
  const doc = clone(target);
  try {
    for (const op of operations as Array<JsonObject | null>) applyOne(doc, op ?? {});
  } catch (err) {
    if (err instanceof OpError) throw invalid(GENERIC_422_MESSAGE, err.message);
    throw err;
  }
  return doc;
}
