/**
 * Where the server meets its field manager: the typing scope of a request (built-in table or CRD schema, reset
 * fields of the endpoint), and the hook that records a write in managedFields.
 * @module
 */
import {
  builtinTypes,
  customResourceTypes,
  deducedSchema,
  resetFields,
  trackWrite,
  versionedTypes,
  type FieldManagerScope,
  type Json,
} from '../apply/index.js';
import { eventsApiVersion, fromEventsView, hasStatus, toEventsView } from '../registry/index.js';
import { isPlainObject, type KubeObject, timestamp } from '../machinery/index.js';
import { crdStorageKey, type RequestTarget, type ServerState } from '../storage/index.js';

/**
 * The field manager's view of a request target.
 *
 * # Guarantees
 * - Built-in kinds are typed from the table generated out of Kubernetes' OpenAPI; custom resources from the
 *   schema of their CRD's version (read at each request, so CRD updates apply at once); a kind missing from both
 *   falls back to the deduced schema.
 */
export function fieldScope(
  state: ServerState,
  target: Pick<RequestTarget, 'resource' | 'version' | 'subresource'>,
): FieldManagerScope {
  const { resource } = target;
  const subresource =
    target.subresource === 'status' || target.subresource === 'scale' ? target.subresource : undefined;
  const reset = resetFields({
    custom: resource.custom,
    kind: resource.kind,
    hasStatus: hasStatus(resource, target.version),
    subresource,
  });
  const eventViews = !resource.custom && resource.kind === 'Event';
  const at = (apiVersion: string) => {
    if (eventViews && (apiVersion === 'v1' || apiVersion === eventsApiVersion)) {
      return builtinTypes(apiVersion === 'v1' ? '' : 'events.k8s.io', 'v1', 'Event');
    }
    const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
    if (
      apiVersion !== (resource.group === '' ? version : `${resource.group}/${version}`) ||
      !resource.versions.includes(version)
    )
      return undefined;
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
  return {
    group: resource.group,
    version: target.version,
    kind: resource.kind,
    ...(subresource ? { subresource } : {}),
    types: versionedTypes(at, reset, convert),
    now: () => timestamp(state.runtime.now()),
  };
}

/** A hook for the strategy: records the write of `manager` over `live` in the decoded object's managedFields. */
export function tracker(
  state: ServerState,
  target: Pick<RequestTarget, 'resource' | 'version' | 'subresource'>,
  live: KubeObject | undefined,
  manager: string,
): (decoded: KubeObject) => void {
  const scope = fieldScope(state, target);
  return (decoded) => trackWrite(scope, live, decoded, manager);
}
