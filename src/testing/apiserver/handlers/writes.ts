/**
 * CREATE, UPDATE (PUT) and PATCH handlers.
 * @module
 */
import {
  admitCreate,
  checkFields,
  fieldValidation,
  type FieldValidation,
  present,
  type Reply,
  tracker,
  updateAt,
} from '../write-path/index.js';
import { writeOptions } from '../apply/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from '../patch/index.js';
import {
  ApiError,
  badRequest,
  isPlainObject,
  keepingWarnings,
  type KubeObject,
  methodNotAllowed,
  unknownPatchType,
  unsupportedMediaType,
} from '../machinery/index.js';
import { isDryRun } from './query.js';
import { applyRequest } from './server-side-apply.js';
import { storageKey } from '../registry/index.js';
import { mustGet, type RequestTarget, type ServerState } from '../storage/index.js';
import { parseJson } from '../../../transport/index.js';

/**
 * POST to a collection.
 *
 * # Guarantees
 * - The namespace must exist (404 `namespaces "x" not found`) and not be terminating (403), as with the
 *   NamespaceLifecycle admission plugin; an existing name is 409 AlreadyExists. Nothing is stored on error.
 */
export function create(
  state: ServerState,
  target: RequestTarget,
  body: unknown,
  query: URLSearchParams,
  userAgent?: string,
): Reply {
  if (target.resource.namespaced && target.namespace === '') throw methodNotAllowed();
  const { manager } = writeOptions(query, 'create', false, userAgent);
  const dryRun = isDryRun(query);
  const warnings = checkBody(state, target, body, fieldValidation(query, 'CreateOptions'));
  return keepingWarnings(warnings, () => {
    const obj = admitCreate(state, target, body, true, tracker(state, target, undefined, manager));
    if (dryRun) return { code: 201, body: obj, warnings };
    return { code: 201, body: present(target, state.store.put(storageKey(target.resource), obj)), warnings };
  });
}

/** PUT to an object or its status subresource. PUT never creates (404 for a missing object). */
export function update(
  state: ServerState,
  target: RequestTarget,
  body: unknown,
  query: URLSearchParams,
  userAgent?: string,
): Reply {
  const { manager } = writeOptions(query, 'update', false, userAgent);
  const dryRun = isDryRun(query);
  const warnings = checkBody(state, target, body, fieldValidation(query, 'UpdateOptions'));
  return keepingWarnings(warnings, () => {
    const old = mustGet(state, target);
    const track = tracker(state, target, present(target, old), manager);
    return { ...updateAt(state, target, old, body, track, dryRun), warnings };
  });
}

/** Drops the unknown fields of a create or update body, as `mode` asks (see `checkFields`); returns the warnings. */
function checkBody(state: ServerState, target: RequestTarget, body: unknown, mode: FieldValidation): readonly string[] {
  return isPlainObject(body) ? checkFields(state, target, body as KubeObject, mode, { kind: 'body' }) : [];
}

/** The patch types other than apply. */
const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

function unsupportedPatch(target: RequestTarget): ApiError {
  const types = target.resource.custom
    ? 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
    : 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json';
  return unsupportedMediaType(
    `the body of the request was in an unknown format - accepted media types include: ${types}`,
  );
}

function runPatch(target: RequestTarget, type: string, base: KubeObject, patch: unknown, kind: string): unknown {
  try {
    switch (type) {
      case 'application/json-patch+json':
        return applyJsonPatch(base, patch);
      case 'application/merge-patch+json':
        if (!isPlainObject(patch)) throw badRequest('Invalid JSON Patch');
        return applyMergePatch(base, patch);
      case 'application/strategic-merge-patch+json':
        if (target.resource.custom) throw unsupportedPatch(target);
        if (!isPlainObject(patch)) throw badRequest('Invalid JSON Patch');
        return applyStrategicMergePatch(base, patch, kind);
      default:
        throw unsupportedPatch(target);
    }
  } catch (error) {
    if (error instanceof PatchError)
      throw new ApiError(error.status, error.reason, error.message, error.status === 400 ? undefined : {});
    throw error;
  }
}

/**
 * Applies a PATCH body of `contentType` to `base` (what the client sees) and returns the result.
 *
 * # Guarantees
 * - `base` is only read (the patch functions are pure); the result shares nothing with it, so it may be changed.
 * - Unknown types are 415 (`application/apply-patch+yaml` goes to `applyRequest`, not here); an unparsable
 *   patch is 400; a patch that cannot apply is the patch library's 400/409/422.
 */
export function patchDocument(
  target: RequestTarget,
  contentType: string,
  raw: string,
  base: KubeObject,
  kind: string = target.resource.kind,
): KubeObject {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!patchTypes.includes(type)) throw unknownPatchType();
  return patchWith(target, type, parsePatch(raw), base, kind);
}

function parsePatch(raw: string): unknown {
  try {
    return parseJson(raw);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
}

function patchWith(target: RequestTarget, type: string, parsed: unknown, base: KubeObject, kind: string): KubeObject {
  const result = runPatch(target, type, base, parsed, kind);
  if (!isPlainObject(result)) throw badRequest('the patched object is not a JSON object');
  const patched = result as KubeObject;
  if (!isPlainObject(patched.metadata)) throw badRequest('the patched object has no metadata');
  return patched;
}

/**
 * `base` without its managedFields when a merge patch leaves them as they are, and the managedFields to put back
 * into the result: they are often half the object, and copying them only for the field manager to read them back
 * costs more than the rest of the patch.
 */
function managedFieldsAside(
  type: string,
  parsed: unknown,
  base: KubeObject,
): { readonly base: KubeObject; readonly managedFields?: unknown } {
  const managedFields = base.metadata['managedFields'];
  if (managedFields === undefined || type !== 'application/merge-patch+json' || !isPlainObject(parsed)) return { base };
  const patchedMeta = parsed['metadata'];
  if (isPlainObject(patchedMeta) && Object.hasOwn(patchedMeta, 'managedFields')) return { base };
  const { managedFields: _aside, ...metadata } = base.metadata;
  return { base: { ...base, metadata }, managedFields };
}

/**
 * PATCH with merge, JSON or strategic merge patch (built-ins only; 415 for custom resources, like the real server),
 * or server-side apply (see `applyRequest`).
 *
 * # Guarantees
 * - The result goes through the same rules as PUT: status subresource, generation, finalizers, and a
 *   resourceVersion carried by the patch must match (409).
 */
export function patch(
  state: ServerState,
  target: RequestTarget,
  contentType: string,
  raw: string,
  query: URLSearchParams,
  userAgent?: string,
): Reply {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const validation = fieldValidation(query, 'PatchOptions');
  if (type === 'application/apply-patch+yaml') return applyRequest(state, target, raw, query, userAgent);
  if (!patchTypes.includes(type)) throw unknownPatchType();
  const { manager } = writeOptions(query, 'patch', false, userAgent);
  const dryRun = isDryRun(query);
  const old = mustGet(state, target);
  const parsed = parsePatch(raw);
  const aside = managedFieldsAside(type, parsed, present(target, old));
  const patched = patchWith(target, type, parsed, aside.base, target.resource.kind);
  // Where the merge left metadata an object, it holds them as they were (the field manager reads them, and replaces them).
  if (aside.managedFields !== undefined) patched.metadata['managedFields'] = aside.managedFields;
  const warnings = checkFields(state, target, patched, validation, { kind: 'patch', type, patch: parsed });
  if (patched.metadata.resourceVersion === undefined || patched.metadata.resourceVersion === null) {
    patched.metadata.resourceVersion = old.metadata.resourceVersion;
  }
  return keepingWarnings(warnings, () => {
    const track = tracker(state, target, present(target, old), manager);
    return { ...updateAt(state, target, old, patched, track, dryRun), warnings };
  });
}
