/**
 * The field manager of the in-memory API server: `managedFields` for every write and server-side apply, as
 * kube-apiserver's default field manager chain does them (version check, last-applied annotation, tracking
 * before the first apply, update-manager cap, manager identifiers, timestamps, meta stripping, merge).
 * @module
 */
import { ApiError, badRequest, cloneJson, isPlainObject, type KubeObject, reasonless } from '../machinery/index.js';
import { FieldSet } from './fieldset.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  managerIdentifier,
  ManagedFieldsError,
  type Managed,
} from './managed.js';
import { fieldElement, pathToString } from './path.js';
import { TypedValueError, type TypedError } from './typed/common.js';
import { validate } from './typed/fieldset.js';
import {
  applyConfig,
  ConflictsError,
  recordUpdate,
  type Conflict,
  type ManagedFields,
  type VersionedTypes,
} from './updater.js';
import { equalValues, goJson, type Json, type JsonMap } from './value.js';
import type { TypeRef, TypedSchema } from './schema.js';

/** The endpoint a write goes through: kind, request version, subresource, and how objects are typed there. */
export interface FieldManagerScope {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly subresource?: 'status' | 'scale';
  readonly types: VersionedTypes;
  /** The time stamp of a write now (`metav1.Time`, seconds), from the server's clock. */
  now(): string;
}

const currentOperation = 'current-operation';
const beforeFirstApply = 'before-first-apply';
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

const stripped = FieldSet.of(
  [
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'selfLink'],
    ['metadata', 'uid'],
    ['metadata', 'clusterName'],
    ['metadata', 'generation'],
    ['metadata', 'managedFields'],
    ['metadata', 'resourceVersion'],
  ].map((p) => p.map(fieldElement)),
);

function apiVersionOf(scope: FieldManagerScope): string {
  return scope.group === '' ? scope.version : `${scope.group}/${scope.version}`;
}

/** The object as the merge sees it: without managedFields (they are bookkeeping, not content). */
function content(obj: KubeObject | undefined): Json | undefined {
  if (obj === undefined) return {};
  const { managedFields: _ignored, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata } as unknown as Json;
}

/** `stripMetaManager`: nobody owns identity and system metadata. */
function stripMeta(fields: ManagedFields, manager: string): void {
  const owned = fields.get(manager);
  if (owned === undefined) return;
  const set = owned.set.difference(stripped);
  if (set.empty()) fields.delete(manager);
  else fields.set(manager, { ...owned, set });
}

function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isPlainObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

/** `decodeLiveOrNew`: a main-resource write may carry (or reset) managedFields; a subresource write may not. */
function managedBefore(live: KubeObject | undefined, next: KubeObject, subresource: boolean): Managed {
  const fromLive = () => decodeOrEmpty(live?.metadata['managedFields']);
  if (subresource) return fromLive();
  const given = next.metadata['managedFields'];
  if (isReset(given)) return emptyManaged();
  // A client that read the object sends its managedFields back unchanged (every merge patch does): the stored
  // ones read the same, and their sets are already known.
  if (live !== undefined && equalValues(given as Json, live.metadata['managedFields'] as Json)) return fromLive();
  const decoded = decodeOrEmpty(given);
  return decoded.fields.size === 0 ? fromLive() : decoded;
}

/** The update half of the chain from the manager-info builder down (`buildManagerInfo` → merge). */
function update(
  scope: FieldManagerScope,
  live: Json | undefined,
  next: Json | undefined,
  managed: Managed,
  manager: string,
): void {
  const apiVersion = apiVersionOf(scope);
  const id = managerIdentifier({
    manager: manager === '' ? 'unknown' : manager,
    operation: 'Update',
    apiVersion,
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
  });
  recordUpdate(scope.types, live, next, apiVersion, managed.fields, currentOperation);
  stripMeta(managed.fields, currentOperation);
  const written = managed.fields.get(currentOperation);
  if (written !== undefined) {
    managed.fields.delete(currentOperation);
    const previous = managed.fields.get(id);
    managed.fields.set(id, { ...written, set: previous === undefined ? written.set : written.set.union(previous.set) });
    managed.times.set(id, scope.now());
  }
  capUpdateManagers(managed);
}

/**
 * Records a create, update or patch by `manager` in `next.metadata.managedFields` (`FieldManager.UpdateNoErrors`).
 *
 * # Guarantees
 * - The writer's `Update` entry (per manager, API version and subresource) gains what it added or changed and
 *   loses what it removed; other managers lose what it changed; timestamps are those of the write.
 * - A main-resource write may carry managedFields (used as the starting point) or reset them with `[]`; a
 *   subresource write always starts from the stored ones.
 * - An object stored without managedFields stays untracked, as on the real server.
 * - Never throws: on any failure the object is stored without managedFields, as `UpdateNoErrors` does.
 */
export function trackWrite(
  scope: FieldManagerScope,
  live: KubeObject | undefined,
  next: KubeObject,
  manager: string,
): void {
  const managed = managedBefore(live, next, scope.subresource !== undefined);
  delete next.metadata['managedFields'];
  try {
    if (managed.fields.size === 0 && live?.metadata.uid !== undefined) return;
    update(scope, content(live), content(next), managed, manager);
    const entries = encodeManagedFields(managed);
    if (entries !== undefined) next.metadata['managedFields'] = entries;
  } catch {
    delete next.metadata['managedFields'];
  }
}

/** `schema.GroupVersionKind.String()` of what an applied object says it is. */
function gvkText(config: JsonMap): string {
  const apiVersion = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
  const kind = typeof config['kind'] === 'string' ? config['kind'] : '';
  const parts = apiVersion.split('/');
  if (parts.length > 2) return `/, Kind=${kind}`;
  const [group, version] = parts.length === 2 ? parts : ['', parts[0]];
  return `${group}/${version}, Kind=${kind}`;
}

function printManager(id: string): string {
  const entry = JSON.parse(id) as { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  let text = JSON.stringify(entry.manager ?? '');
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion ?? ''}`;
  return text;
}

/** `NewConflictError`: 409 with one `FieldManagerConflict` cause per field, worded as kube-apiserver words it. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathToString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${pathToString(conflicts[0]!.path)}`;
  } else {
    const lines: string[] = [];
    for (const manager of [...new Set(conflicts.map((c) => c.manager))].sort()) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const c of conflicts) if (c.manager === manager) lines.push(`- ${pathToString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

/**
 * What a built-in kind's Go struct would not write: nulls, and (omitempty) empty maps of free-form keys and empty
 * lists. Custom resources are unstructured and keep empty values, as there.
 */
function asGoWouldWrite(typed: TypedSchema, value: Json | undefined): Json | undefined {
  const cleaned = dropNulls(value);
  return typed.root.named?.startsWith('io.k8s.') ? dropEmpty(typed, cleaned, typed.root) : cleaned;
}

function dropEmpty(typed: TypedSchema, value: Json | undefined, ref: TypeRef | undefined): Json | undefined {
  const atom = ref === undefined ? undefined : typed.schema.resolve(ref);
  if (atom === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value))
    return atom.list === undefined ? value : value.map((v) => dropEmpty(typed, v, atom.list!.elementType) ?? null);
  if (atom.map === undefined) return value;
  const out: JsonMap = {};
  for (const [key, child] of Object.entries(value)) {
    const declared = atom.map.fields.get(key);
    const cleaned = dropEmpty(typed, child, declared?.type ?? atom.map.elementType);
    const childAtom = declared === undefined ? undefined : typed.schema.resolve(declared.type);
    // A named model without properties is a Go struct (e.g. `subresources.status`, a pointer to an empty struct):
    // set, it is written as `{}`. Only inline maps without properties are free-form maps that omitempty drops.
    const freeForm =
      childAtom?.map !== undefined && childAtom.map.fields.size === 0 && declared?.type.named === undefined;
    if (Array.isArray(cleaned) && cleaned.length === 0 && childAtom?.list !== undefined) continue;
    if (isPlainObject(cleaned) && Object.keys(cleaned).length === 0 && freeForm) continue;
    out[key] = cleaned as Json;
  }
  return out;
}

function dropNulls(value: Json | undefined): Json | undefined {
  if (Array.isArray(value)) return value.map((v) => dropNulls(v) ?? null);
  if (!isPlainObject(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v as Json)!;
  return out;
}

/** The last validation of each stored object: a stored object never changes, and is applied to again and again. */
const validatedLive = new WeakMap<object, { readonly typed: TypedSchema; readonly errors: readonly TypedError[] }>();

/** `validate(typed, base, true)` for `base`, the content of `live`, remembered when `live` is a stored (frozen) object. */
function liveProblems(typed: TypedSchema, live: KubeObject | undefined, base: JsonMap): readonly TypedError[] {
  if (live === undefined || !Object.isFrozen(live)) return validate(typed, base, true);
  const known = validatedLive.get(live);
  if (known !== undefined && known.typed === typed) return known.errors;
  const errors = validate(typed, base, true);
  validatedLive.set(live, { typed, errors });
  return errors;
}

/**
 * Server-side apply of `config` by `manager` over `live` (undefined: the object does not exist yet).
 *
 * # Guarantees
 * - Returns the object to store, managedFields included; when neither content nor ownership changes it equals
 *   the stored object, so the caller writes nothing.
 * - 400 `invalid object type: <gvk>` when the configuration names another kind or version, 400
 *   `metadata.managedFields must be nil` when it carries managedFields, 500 (no reason, the real text) when it
 *   does not fit the schema, and a {@link conflictError} 409 when other managers own fields it changes and
 *   `force` is not set.
 */
export function applyObject(
  scope: FieldManagerScope,
  live: KubeObject | undefined,
  config: JsonMap,
  manager: string,
  force: boolean,
): KubeObject {
  let managed: Managed;
  try {
    managed = decodeManagedFields(live?.metadata['managedFields']);
  } catch (error) {
    if (error instanceof ManagedFieldsError) throw reasonless(`failed to decode managed fields: ${error.message}`);
    throw error;
  }
  const apiVersion = apiVersionOf(scope);
  if (config['apiVersion'] !== apiVersion || config['kind'] !== scope.kind)
    throw badRequest(`invalid object type: ${gvkText(config)}`);
  const base = content(live) as JsonMap;
  if (managed.fields.size === 0) update(scope, {}, base, managed, beforeFirstApply);
  const configMeta = isPlainObject(config['metadata']) ? config['metadata'] : {};
  if (Array.isArray(configMeta['managedFields'])) throw badRequest('metadata.managedFields must be nil');
  const typed = scope.types.at(apiVersion);
  if (typed === undefined) throw reasonless(`no corresponding type for ${gvkText(config)}`);
  const where = `${String(configMeta['namespace'] ?? '')}/${String(configMeta['name'] ?? '')}; ${gvkText(config)}`;
  const configErrors = validate(typed, config, false);
  if (configErrors.length > 0)
    throw reasonless(`failed to create typed patch object (${where}): ${new TypedValueError(configErrors).message}`);
  const liveErrors = liveProblems(typed, live, base);
  if (liveErrors.length > 0)
    throw reasonless(`failed to create typed live object (${where}): ${new TypedValueError(liveErrors).message}`);
  const id = managerIdentifier({
    manager,
    operation: 'Apply',
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
  });
  let merged: Json | undefined;
  try {
    merged = applyConfig(scope.types, base, config, apiVersion, managed.fields, id, force);
  } catch (error) {
    if (error instanceof ConflictsError) throw conflictError(error.conflicts);
    if (error instanceof TypedValueError) throw reasonless(`failed to merge config: ${error.message}`);
    throw error;
  }
  stripMeta(managed.fields, id);
  let result: KubeObject;
  if (merged === undefined) result = cloneJson(base) as unknown as KubeObject;
  else {
    managed.times.set(id, scope.now());
    result = asGoWouldWrite(typed, merged) as unknown as KubeObject;
  }
  if (!isPlainObject(result.metadata)) result.metadata = {};
  keepLastApplied(result, config, manager);
  const entries = encodeManagedFields(managed);
  if (entries === undefined) delete result.metadata['managedFields'];
  else result.metadata['managedFields'] = entries;
  return result;
}

/** `lastAppliedUpdater`: kubectl's last-applied annotation, when present, follows what kubectl applies. */
function keepLastApplied(result: KubeObject, config: JsonMap, manager: string): void {
  const annotations = result.metadata.annotations;
  if (manager !== 'kubectl' || !isPlainObject(annotations) || !annotations[lastAppliedAnnotation]) return;
  const copy = cloneJson(config);
  const meta = isPlainObject(copy['metadata']) ? copy['metadata'] : undefined;
  if (meta !== undefined && isPlainObject(meta['annotations'])) {
    delete meta['annotations'][lastAppliedAnnotation];
  }
  result.metadata.annotations = { ...annotations, [lastAppliedAnnotation]: `${goJson(copy)}\n` };
}
