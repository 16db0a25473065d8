/**
 * Where the server meets its field manager: the typing scope of a request (built-in table or CRD schema, reset
 * fields of the endpoint) and the server-side apply request (`PATCH` with `application/apply-patch+yaml`).
 * @module
 */
import {
  applyObject, builtinTypes, customResourceTypes, deducedSchema, parseApplyBody, resetFields, trackWrite, versionedTypes,
  writeOptions, type FieldManagerScope,
} from './apply/index.js';
import type { Json } from './apply/index.js';
import { eventsApiVersion, fromEventsView, toEventsView } from './events.js';
import { isPlainObject, objectKey, timestamp, type KubeObject } from './object.js';
import { hasStatus, storageKey } from './resource.js';
import { conflict, notFound } from './status.js';
import { crdStorageKey, type RequestTarget, type ServerState } from './state.js';
import { admitCreate, commitUpdate, isDryRun, present, type Reply } from './writes.js';
import { prepareUpdate } from './strategy.js';

/**
 * The field manager's view of a request target.
 *
 * # Guarantees
 * - Built-in kinds are typed from the table generated out of Kubernetes' OpenAPI; custom resources from the
 *   schema of their CRD's version (read at each request, so CRD updates apply at once); a kind missing from both
 *   falls back to the deduced schema.
 */
export function fieldScope(state: ServerState, target: Pick<RequestTarget, 'resource' | 'version' | 'subresource'>): FieldManagerScope {
  const { resource } = target;
  const subresource = target.subresource === 'status' || target.subresource === 'scale' ? target.subresource : undefined;
  const reset = resetFields({ custom: resource.custom, kind: resource.kind, hasStatus: hasStatus(resource, target.version), subresource });
  const eventViews = !resource.custom && resource.kind === 'Event';
  const at = (apiVersion: string) => {
    if (eventViews && (apiVersion === 'v1' || apiVersion === eventsApiVersion)) {
      return builtinTypes(apiVersion === 'v1' ? '' : 'events.k8s.io', 'v1', 'Event');
    }
    const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
    if (apiVersion !== (resource.group === '' ? version : `${resource.group}/${version}`) || !resource.versions.includes(version)) return undefined;
    if (resource.custom) {
      const crd = state.store.get(crdStorageKey, `${resource.plural}.${resource.group}`);
      return crd === undefined ? undefined : customResourceTypes(crd, version);
    }
    return builtinTypes(resource.group, version, resource.kind) ?? deducedSchema;
  };
  // Managers of the other Event view compare the objects in their own form, as SMD converts between versions.
  const convert = (value: Json | undefined, apiVersion: string): Json | undefined => {
    if (!eventViews || !isPlainObject(value) || value['apiVersion'] === apiVersion) return value;
    const obj = value as unknown as KubeObject;
    return (apiVersion === eventsApiVersion ? toEventsView(obj) : fromEventsView(obj)) as unknown as Json;
  };
  return { group: resource.group, version: target.version, kind: resource.kind, ...(subresource ? { subresource } : {}), types: versionedTypes(at, reset, convert), now: () => timestamp(state.runtime.now()) };
}

/** A hook for the strategy: records the write of `manager` over `live` in the decoded object's managedFields. */
export function tracker(state: ServerState, target: Pick<RequestTarget, 'resource' | 'version' | 'subresource'>, live: KubeObject | undefined, manager: string): (decoded: KubeObject) => void {
  const scope = fieldScope(state, target);
  return (decoded) => trackWrite(scope, live, decoded, manager);
}

/** Keeps the managedFields the field manager already computed (apply). */
const keepManagedFields = (): void => undefined;

/**
 * Server-side apply: `PATCH` with `application/apply-patch+yaml` (JSON is accepted, being YAML).
 *
 * # Guarantees
 * - Creates the object (201) when it does not exist, through the same admission as `POST`; on `/status` a missing
 *   object is 404, as the status strategies do not create.
 * - `fieldManager` is required and `force` honoured; conflicts are the real 409; `dryRun=All` stores nothing.
 * - An apply that changes neither content nor ownership writes nothing (same resourceVersion, no event).
 */
export function applyRequest(state: ServerState, target: RequestTarget, raw: string, query: URLSearchParams, userAgent: string | undefined): Reply {
  const options = writeOptions(query, 'patch', true, userAgent);
  const dryRun = isDryRun(query);
  const config = parseApplyBody(raw);
  const scope = fieldScope(state, target);
  const name = target.name ?? '';
  const old = state.store.get(storageKey(target.resource), objectKey(target.resource.namespaced ? target.namespace : '', name));
  if (old === undefined) {
    if (target.subresource !== undefined) throw notFound(target.resource, name);
    const applied = applyObject(scope, undefined, config, options.manager, options.force);
    const uid = applied.metadata.uid;
    if (typeof uid === 'string' && uid !== '') {
      throw conflict(target.resource, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
    }
    const obj = admitCreate(state, target, applied, true, keepManagedFields);
    if (dryRun) return { code: 201, body: present(target, obj) };
    return { code: 201, body: present(target, state.store.put(storageKey(target.resource), obj)) };
  }
  const applied = applyObject(scope, present(target, old), config, options.manager, options.force);
  const sub = target.subresource === 'status' ? 'status' : undefined;
  const next = prepareUpdate(state.runtime, { resource: target.resource, version: target.version, namespace: target.namespace }, old, applied, sub, true, keepManagedFields);
  return commitUpdate(state, target, old, next, dryRun);
}
