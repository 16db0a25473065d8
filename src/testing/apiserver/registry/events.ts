/**
 * core/v1 Events and events.k8s.io/v1 Events are two views of one stored resource, as on the real server: objects
 * are stored in the core/v1 form and converted field by field when read or written through events.k8s.io/v1
 * (apis/events/v1 `Convert_v1_Event_To_core_Event` and back).
 * @module
 */
import { isPlainObject, type KubeObject } from '../machinery/index.js';

/** The API version of the events.k8s.io view. */
export const eventsApiVersion = 'events.k8s.io/v1';

/** events.k8s.io field labels → the stored (core) fields they select (`AddFieldLabelConversionsForEvent`). */
export const eventsFieldLabels: Readonly<Record<string, string>> = {
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
};

/** True for an Event in its stored, core/v1 form. */
export function isCoreEvent(obj: KubeObject): boolean {
  return obj.kind === 'Event' && obj.apiVersion === 'v1';
}

type Json = Record<string, unknown>;

function emptyIfAbsent(value: unknown): unknown {
  return value === undefined ? {} : value;
}

function nullIfAbsent(value: unknown): unknown {
  return value === undefined ? null : value;
}

/**
 * The core/v1 form as the real server serializes it: the struct fields it always writes are present
 * (`involvedObject`, `source` as objects, `firstTimestamp`/`lastTimestamp`/`eventTime` as null when unset,
 * `reportingComponent`/`reportingInstance` as strings).
 */
export function normalizeCoreEvent(obj: KubeObject): KubeObject {
  const out: Json = { ...obj };
  out['involvedObject'] = emptyIfAbsent(out['involvedObject']);
  out['source'] = emptyIfAbsent(out['source']);
  out['firstTimestamp'] = nullIfAbsent(out['firstTimestamp']);
  out['lastTimestamp'] = nullIfAbsent(out['lastTimestamp']);
  out['eventTime'] = nullIfAbsent(out['eventTime']);
  out['reportingComponent'] = out['reportingComponent'] ?? '';
  out['reportingInstance'] = out['reportingInstance'] ?? '';
  return out as KubeObject;
}

function put(out: Json, key: string, value: unknown, omitZero: boolean): void {
  if (value === undefined) return;
  if (omitZero && (value === '' || value === 0 || value === null)) return;
  out[key] = value;
}

/** The events.k8s.io/v1 view of a stored core/v1 Event. */
export function toEventsView(stored: KubeObject): KubeObject {
  const s = stored as Json;
  const out: Json = { kind: 'Event', apiVersion: eventsApiVersion, metadata: stored.metadata };
  out['eventTime'] = nullIfAbsent(s['eventTime']);
  put(out, 'series', s['series'], true);
  put(out, 'reportingController', s['reportingComponent'], true);
  put(out, 'reportingInstance', s['reportingInstance'], true);
  put(out, 'action', s['action'], true);
  put(out, 'reason', s['reason'], true);
  out['regarding'] = emptyIfAbsent(s['involvedObject']);
  put(out, 'related', s['related'], true);
  put(out, 'note', s['message'], true);
  put(out, 'type', s['type'], true);
  out['deprecatedSource'] = emptyIfAbsent(s['source']);
  out['deprecatedFirstTimestamp'] = nullIfAbsent(s['firstTimestamp']);
  out['deprecatedLastTimestamp'] = nullIfAbsent(s['lastTimestamp']);
  put(out, 'deprecatedCount', s['count'], true);
  return out as KubeObject;
}

/** The stored core/v1 form of an events.k8s.io/v1 Event (the write direction). */
export function fromEventsView(view: KubeObject): KubeObject {
  const v = view as Json;
  const out: Json = { kind: 'Event', apiVersion: 'v1', metadata: view.metadata };
  out['involvedObject'] = emptyIfAbsent(v['regarding']);
  put(out, 'reason', v['reason'], true);
  put(out, 'message', v['note'], true);
  out['source'] = emptyIfAbsent(v['deprecatedSource']);
  out['firstTimestamp'] = nullIfAbsent(v['deprecatedFirstTimestamp']);
  out['lastTimestamp'] = nullIfAbsent(v['deprecatedLastTimestamp']);
  put(out, 'count', v['deprecatedCount'], true);
  put(out, 'type', v['type'], true);
  out['eventTime'] = nullIfAbsent(v['eventTime']);
  put(out, 'series', v['series'], true);
  put(out, 'action', v['action'], true);
  put(out, 'related', v['related'], true);
  out['reportingComponent'] = typeof v['reportingController'] === 'string' ? v['reportingController'] : '';
  out['reportingInstance'] = typeof v['reportingInstance'] === 'string' ? v['reportingInstance'] : '';
  return out as KubeObject;
}

/** Converts a stored Event for a response at `apiVersion`, or undefined when `obj` is not an Event to convert. */
export function eventAtVersion(obj: KubeObject, apiVersion: string): KubeObject | undefined {
  if (!isCoreEvent(obj)) return undefined;
  if (apiVersion === eventsApiVersion) return toEventsView(obj);
  return undefined;
}

/** True when a field-selector value of an event view should be read from an object map (`source` is a struct). */
export function isEventStruct(value: unknown): boolean {
  return isPlainObject(value);
}
