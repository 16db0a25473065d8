/**
 * Create/update preparation per type: what the registry strategies of kube-apiserver do before storing an object
 * (system fields, status reset, generation, immutable fields, finalizer rules).
 * @module
 */
import { crdCleanupFinalizer, crdStatus, validateCrd } from './crd.js';
import { applyDefaults } from './defaults.js';
import {
  badRequest,
  cloneJson,
  conflict,
  type FieldError,
  fieldForbidden,
  invalid,
  isPlainObject,
  jsonEqual,
  type KubeObject,
  type ObjectMeta,
  preconditionFailed,
  reasonless,
  type ServerRuntime,
  timestamp,
} from '../machinery/index.js';
import { groupVersion, hasStatus, type ResourceInfo } from './resource.js';
import { validateEventCreate, validateEventUpdate } from './event-validation.js';
import { validateMeta } from './validation.js';
import { fromEventsView, normalizeCoreEvent } from './events.js';
import {
  allocateServiceAddresses,
  keepAllocatedValues,
  podSpecProblems,
  qosClass,
  validateLease,
  validatePodSpec,
} from './kinds.js';

/** Where a write is aimed: the resource, the version in the URL, and the URL's namespace and name. */
export interface WriteTarget {
  readonly resource: ResourceInfo;
  readonly version: string;
  readonly namespace: string;
  readonly name?: string;
}

const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` + 5 random characters from the real name generator's alphabet. */
export function generateName(prefix: string, random: () => number): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[Math.floor(random() * nameAlphabet.length)];
  return `${prefix.slice(0, 58)}${suffix}`;
}

/**
 * Checks a request body is an object of the URL's kind and version, and returns it as a mutable copy.
 *
 * # Guarantees
 * - Missing kind/apiVersion are filled from the URL for built-ins (the real decoder defaults them), and
 *   built-in field defaults are applied (see `defaults.ts`).
 * - A mismatch is a 400 BadRequest and nothing is stored.
 * - `owned`: the caller hands `body` over (a request body it just parsed), so its parts are reused, and may be
 *   changed, instead of copied; otherwise `body` is left untouched.
 */
export function decodeBody(target: WriteTarget, body: unknown, owned = false): KubeObject {
  const { resource, version } = target;
  const gv = groupVersion(resource.group, version);
  if (!isPlainObject(body))
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): body must be a JSON object`,
    );
  // kind and apiVersion first, as the real serializer writes them.
  const obj = Object.assign(
    { kind: resource.kind, apiVersion: gv, metadata: {} },
    owned ? body : cloneJson(body),
  ) as KubeObject;
  if (resource.custom && (obj.kind === undefined || obj.apiVersion === undefined)) {
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
  }
  if (obj.kind !== undefined && obj.kind !== resource.kind) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): kind ${JSON.stringify(obj.kind)} does not match the URL`,
    );
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== gv) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`,
    );
  }
  obj.kind = resource.kind;
  obj.apiVersion = gv;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isPlainObject(obj.metadata)) throw badRequest('metadata must be a JSON object');
  for (const field of ['name', 'generateName', 'namespace', 'resourceVersion', 'uid'] as const) {
    const value = obj.metadata[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      // What the real (Go) decoder says for a mistyped field.
      throw badRequest(
        `json: cannot unmarshal ${typeof value} into Go struct field ObjectMeta.metadata.${field} of type string`,
      );
    }
    if (value === null) delete obj.metadata[field];
  }
  const ns = obj.metadata.namespace;
  if (resource.namespaced) {
    if (ns !== undefined && ns !== '' && ns !== target.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.namespace = target.namespace;
  } else {
    delete obj.metadata.namespace;
  }
  if (target.name !== undefined && obj.metadata.name !== undefined && obj.metadata.name !== target.name) {
    throw badRequest(
      `the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${target.name})`,
    );
  }
  if (target.name !== undefined) obj.metadata.name = target.name;
  applyDefaults(resource, obj);
  return obj;
}

/** Types validated by core's ObjectMeta rules (stricter finalizer names); apiextensions types and CRs are not. */
function usesCoreMetaValidation(resource: ResourceInfo): boolean {
  return !resource.custom && resource.group !== 'apiextensions.k8s.io';
}

function failIfInvalid(resource: ResourceInfo, obj: KubeObject, errors: FieldError[]): void {
  if (errors.length > 0) throw invalid(resource.group, resource.kind, obj.metadata.name ?? '', errors);
}

/** Status and spec defaults a type gets on create (the strategies' PrepareForCreate). */
function prepareCreateByKind(runtime: ServerRuntime, resource: ResourceInfo, version: string, obj: KubeObject): void {
  const wipeStatus = hasStatus(resource, version);
  switch (resource.custom ? '' : resource.kind) {
    case 'Pod': {
      const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
      obj['status'] = { phase: 'Pending', qosClass: qosClass(spec) };
      return;
    }
    case 'Node':
      return; // the kubelet registers nodes with their status, so the real strategy keeps it
    case 'Namespace': {
      const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
      obj['spec'] = { ...spec, finalizers: ['kubernetes'] };
      obj['status'] = { phase: 'Active' };
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
      return;
    }
    case 'Service':
      allocateServiceAddresses(obj, runtime.random);
      obj['status'] = { loadBalancer: {} };
      return;
    case 'CustomResourceDefinition':
      obj['status'] = crdStatus(obj, timestamp(runtime.now()));
      obj.metadata.finalizers = [...new Set([...(obj.metadata.finalizers ?? []), crdCleanupFinalizer])];
      return;
    default:
      if (wipeStatus) {
        if (resource.custom) delete obj['status'];
        else obj['status'] = {};
      }
  }
}

function kindValidation(resource: ResourceInfo, obj: KubeObject): FieldError[] {
  if (resource.custom) return [];
  if (resource.kind === 'Pod') return validatePodSpec(obj);
  if (resource.kind === 'Lease') return validateLease(obj);
  if (resource.kind === 'CustomResourceDefinition') return validateCrd(obj);
  if (resource.kind === 'Event') return validateEventCreate(obj, resource.group === 'events.k8s.io');
  return [];
}

/**
 * Turns a create body into the object to store (without resourceVersion, which the store stamps).
 *
 * # Guarantees
 * - Sets uid, creationTimestamp, generation (per type), resets status as the real strategy does.
 * - Throws an `ApiError` (400/422) and stores nothing on invalid input. `owned` as for {@link decodeBody}.
 */
export function prepareCreate(
  runtime: ServerRuntime,
  target: WriteTarget,
  body: unknown,
  owned = false,
  track?: (decoded: KubeObject) => void,
): KubeObject {
  const obj = decodeBody(target, body, owned);
  // managedFields are the field manager's: computed on the decoded, defaulted body, before the strategy runs.
  if (track === undefined) delete obj.metadata['managedFields'];
  else track(obj);
  const stored = toStoredForm(target.resource, obj);
  return finishCreate(runtime, target, stored);
}

/** Events are stored in their core/v1 form, whichever API wrote them. */
function toStoredForm(resource: ResourceInfo, obj: KubeObject): KubeObject {
  if (resource.custom || resource.kind !== 'Event') return obj;
  return normalizeCoreEvent(resource.group === 'events.k8s.io' ? fromEventsView(obj) : obj);
}

function finishCreate(runtime: ServerRuntime, target: WriteTarget, obj: KubeObject): KubeObject {
  const meta: ObjectMeta = obj.metadata;
  if ((meta.name ?? '') === '' && typeof meta.generateName === 'string' && meta.generateName !== '') {
    meta.name = generateName(meta.generateName, runtime.random);
  }
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    throw reasonless('resourceVersion should not be set on objects to be created');
  }
  meta.uid = runtime.uuid();
  meta.creationTimestamp = timestamp(runtime.now());
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta['selfLink'];
  if (target.resource.generation === 'none') delete meta.generation;
  else meta.generation = 1;
  prepareCreateByKind(runtime, target.resource, target.version, obj);
  failIfInvalid(target.resource, obj, [
    ...validateMeta(
      meta,
      target.resource.nameRule,
      target.resource.namespaced,
      usesCoreMetaValidation(target.resource),
    ),
    ...kindValidation(target.resource, obj),
  ]);
  return obj;
}

function bumpGeneration(
  resource: ResourceInfo,
  version: string,
  old: KubeObject,
  next: KubeObject,
): number | undefined {
  const current = old.metadata.generation;
  if (resource.generation === 'none') return current;
  const base = current ?? 1;
  if (resource.generation === 'spec') return jsonEqual(old['spec'], next['spec']) ? base : base + 1;
  if (resource.generation === 'specAndAnnotations') {
    const same =
      jsonEqual(old['spec'], next['spec']) &&
      jsonEqual(old.metadata.annotations ?? {}, next.metadata.annotations ?? {});
    return same ? base : base + 1;
  }
  const skip = new Set(['metadata', 'apiVersion', 'kind', ...(hasStatus(resource, version) ? ['status'] : [])]);
  const strip = (o: KubeObject) => Object.fromEntries(Object.entries(o).filter(([k]) => !skip.has(k)));
  return jsonEqual(strip(old), strip(next)) ? base : base + 1;
}

/**
 * Checks `metadata.resourceVersion` and `metadata.uid` of a write body against the stored object.
 *
 * # Guarantees
 * - A stale resourceVersion is a 409 Conflict with the real message; a missing one is allowed only when the type
 *   allows unconditional updates (422 otherwise, as for custom resources).
 */
export function checkPreconditions(resource: ResourceInfo, old: KubeObject, meta: ObjectMeta): void {
  const name = old.metadata.name ?? '';
  const rv = meta.resourceVersion;
  if (rv === undefined || rv === '') {
    if (!resource.allowUnconditionalUpdate) {
      // The generic store reports this one against the resource (`widgets.example.com "x" is invalid`). Older
      // servers printed the uint64 zero as 0x0; kube-apiserver 1.36 prints 0 (checked by the contract suite).
      throw invalid(resource.group, resource.plural, name, [
        {
          field: 'metadata.resourceVersion',
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: must be specified for an update',
        },
      ]);
    }
  } else if (rv !== old.metadata.resourceVersion) {
    throw conflict(resource, name);
  }
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== old.metadata.uid) {
    throw preconditionFailed(resource.group, resource.kind, name, 'UID', String(meta.uid), old.metadata.uid ?? '');
  }
}

/** A write to the main resource: status stays as stored where the type has the subresource; per-kind resets. */
function keepStatus(
  runtime: ServerRuntime,
  resource: ResourceInfo,
  version: string,
  old: KubeObject,
  next: KubeObject,
): KubeObject {
  if (hasStatus(resource, version)) {
    if (old['status'] === undefined) delete next['status'];
    else next['status'] = cloneJson(old['status']);
  }
  if (!resource.custom && resource.kind === 'Namespace') next['spec'] = cloneJson(old['spec']);
  if (!resource.custom && resource.kind === 'Service') keepAllocatedValues(old, next);
  if (!resource.custom && resource.kind === 'CustomResourceDefinition')
    next['status'] = crdStatus(next, timestamp(runtime.now()), old['status']);
  return next;
}

function restore(next: Record<string, unknown>, old: Record<string, unknown>, field: string): void {
  if (old[field] === undefined) delete next[field];
  else next[field] = cloneJson(old[field]);
}

/**
 * A write to `/status`, reset as each registry's status strategy resets it: custom resources keep everything but
 * status from the stored object; built-ins keep `spec`, Deployments also `metadata.labels`, Pods also
 * `metadata.ownerReferences` (labels, annotations and finalizers of other built-ins may change there, as on the
 * real server).
 */
function keepAllButStatus(resource: ResourceInfo, old: KubeObject, incoming: KubeObject): KubeObject {
  if (resource.custom) {
    const next: KubeObject = { ...cloneJson(old), apiVersion: incoming.apiVersion, kind: incoming.kind };
    restore(next, incoming, 'status');
    restore(next.metadata, incoming.metadata, 'managedFields');
    return next;
  }
  restore(incoming, old, 'spec');
  if (resource.kind === 'Deployment') restore(incoming.metadata, old.metadata, 'labels');
  if (resource.kind === 'Pod') restore(incoming.metadata, old.metadata, 'ownerReferences');
  return incoming;
}

/**
 * Turns an update body (PUT, or the result of a patch) into the object to store.
 *
 * # Guarantees
 * - Main endpoint: status is kept from `old` when the type has a status subresource; `status` endpoint: only
 *   status changes. System metadata (uid, creationTimestamp, deletion fields) always comes from `old`.
 * - Generation follows the type's policy. New finalizers on an object being deleted are rejected (422).
 */
export function prepareUpdate(
  runtime: ServerRuntime,
  target: WriteTarget,
  old: KubeObject,
  body: unknown,
  subresource: 'status' | undefined,
  owned = false,
  track?: (decoded: KubeObject) => void,
): KubeObject {
  const { resource, version } = target;
  const incoming = decodeBody({ ...target, name: old.metadata.name ?? '' }, body, owned);
  checkPreconditions(resource, old, incoming.metadata);
  if (track === undefined) incoming.metadata['managedFields'] = cloneJson(old.metadata['managedFields']);
  else track(incoming);
  if (incoming.metadata['managedFields'] === undefined) delete incoming.metadata['managedFields'];
  const stored = toStoredForm(resource, incoming);
  const next =
    subresource === 'status'
      ? keepAllButStatus(resource, old, stored)
      : keepStatus(runtime, resource, version, old, stored);
  const meta = next.metadata;
  for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    if (old.metadata[field] === undefined) delete meta[field];
    else (meta as Record<string, unknown>)[field] = old.metadata[field];
  }
  delete meta['selfLink'];
  const generation = bumpGeneration(resource, version, old, next);
  if (generation === undefined) delete next.metadata.generation;
  else next.metadata.generation = generation;
  const errors = validateMeta(next.metadata, resource.nameRule, resource.namespaced, usesCoreMetaValidation(resource));
  if (old.metadata.deletionTimestamp !== undefined) {
    const before = new Set(old.metadata.finalizers ?? []);
    const wanted: unknown[] = Array.isArray(next.metadata.finalizers) ? next.metadata.finalizers : [];
    const added = wanted.filter((f) => !before.has(f as string));
    if (added.length > 0) {
      errors.push(
        fieldForbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if (!resource.custom && resource.kind === 'Pod' && subresource === undefined)
    errors.push(...podSpecProblems(old['spec'], next['spec']));
  if (!resource.custom && resource.kind === 'CustomResourceDefinition' && subresource === undefined)
    errors.push(...validateCrd(next));
  if (!resource.custom && resource.kind === 'Lease') errors.push(...validateLease(next));
  if (!resource.custom && resource.kind === 'Event')
    errors.push(...validateEventUpdate(next, old, resource.group === 'events.k8s.io'));
  failIfInvalid(resource, next, errors);
  return next;
}

/** True when `next` equals `old` apart from resourceVersion: the real server then writes nothing. */
export function isNoop(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return jsonEqual(strip(old), strip(next));
}
