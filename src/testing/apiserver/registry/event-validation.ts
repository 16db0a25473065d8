/**
 * Event validation as kube-apiserver runs it (`pkg/apis/core/validation/events.go`): on the stored core/v1 form,
 * with field paths of that internal form (`message`, `involvedObject.namespace`), whichever API wrote the Event.
 * Writes through core/v1 get the legacy checks only; events.k8s.io/v1 writes get the strict ones too.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type FieldError,
  fieldInvalid,
  fieldRequired,
  isPlainObject as isObject,
  type KubeObject,
} from '../machinery/index.js';
import { qualifiedNameProblems } from './validation.js';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

type Json = Record<string, unknown>;

/**
 * The fields an events.k8s.io/v1 update may not change, in `ValidateEventUpdate`'s order: `reason` is checked twice
 * there, so a changed reason is reported twice, as the real server does. Pairs are [stored field, reported path].
 */
const IMMUTABLE: ReadonlyArray<readonly [string, string]> = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'reason',
  'type',
].map((field) => [field, field] as const);
const IMMUTABLE_AFTER_TIME: ReadonlyArray<readonly [string, string]> = [
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/**
 * Problems with an Event about to be created, in its stored core/v1 form; `strict` for events.k8s.io/v1 requests.
 *
 * # Guarantees
 * - Messages and field paths are kube-apiserver's, e.g. `reason: Invalid value: "": can have at most 128 characters`.
 */
export function validateEventCreate(event: KubeObject, strict: boolean): FieldError[] {
  const errors = legacyProblems(event as unknown as Json, strict);
  if (!strict) return errors;
  const e = event as unknown as Json;
  errors.push(...seriesProblems(e));
  if (isUnset(e['eventTime'])) errors.push(fieldRequired('eventTime'));
  if (e['type'] !== 'Normal' && e['type'] !== 'Warning')
    errors.push(fieldInvalid('type', '', `has invalid value: ${text(e['type'])}`));
  if (!isUnset(e['firstTimestamp'])) errors.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (!isUnset(e['lastTimestamp'])) errors.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof e['count'] === 'number' && e['count'] !== 0) errors.push(fieldInvalid('count', '', 'needs to be unset'));
  const source = isObject(e['source']) ? e['source'] : {};
  if (text(source['component']) !== '' || text(source['host']) !== '')
    errors.push(fieldInvalid('source', '', 'needs to be unset'));
  return errors;
}

/**
 * Problems with an Event update (`next` replacing `old`, both in stored form); `strict` for events.k8s.io/v1.
 *
 * # Guarantees
 * - Under `strict`, a changed series is validated again, and the immutable fields answer `field is immutable`.
 */
export function validateEventUpdate(next: KubeObject, old: KubeObject, strict: boolean): FieldError[] {
  const n = next as unknown as Json;
  const o = old as unknown as Json;
  const errors = legacyProblems(n, strict);
  if (!strict) return errors;
  if (!isDeepStrictEqual(n['series'], o['series'])) errors.push(...seriesProblems(n));
  for (const [field, path] of IMMUTABLE) errors.push(...immutable(n, o, field, path));
  if (truncatedToMicros(n['eventTime']) !== truncatedToMicros(o['eventTime']))
    errors.push(...immutable(n, o, 'eventTime', 'eventTime'));
  for (const [field, path] of IMMUTABLE_AFTER_TIME) errors.push(...immutable(n, o, field, path));
  return errors;
}

function legacyProblems(e: Json, strict: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = text((e['metadata'] as Json | undefined)?.['namespace']);
  const involved = isObject(e['involvedObject']) ? e['involvedObject'] : {};
  const involvedNamespace = text(involved['namespace']);
  const mismatch = fieldInvalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (isUnset(e['eventTime'])) {
    if (involvedNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace)
      errors.push(mismatch);
    return errors;
  }
  if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errors.push(mismatch);
  const controllerField = strict ? 'reportingController' : 'reportingComponent';
  const controller = text(e['reportingComponent']);
  if (controller === '') errors.push(fieldRequired(controllerField));
  for (const problem of qualifiedNameProblems(controller))
    errors.push(fieldInvalid(controllerField, controller, problem));
  errors.push(...bounded(e, 'reportingInstance', REPORTING_INSTANCE_LIMIT, true));
  errors.push(...bounded(e, 'action', ACTION_LIMIT, true));
  errors.push(...bounded(e, 'reason', REASON_LIMIT, true));
  errors.push(...bounded(e, 'message', NOTE_LIMIT, false));
  return errors;
}

function seriesProblems(e: Json): FieldError[] {
  if (!isObject(e['series'])) return [];
  const series = e['series'];
  const errors: FieldError[] = [];
  if (typeof series['count'] !== 'number' || series['count'] < 2)
    errors.push(fieldInvalid('series.count', '', 'should be at least 2'));
  if (isUnset(series['lastObservedTime'])) errors.push(fieldRequired('series.lastObservedTime'));
  return errors;
}

/** Required (when `required`) and at most `limit` bytes, as Go's `len` counts them. */
function bounded(e: Json, field: string, limit: number, required: boolean): FieldError[] {
  const value = text(e[field]);
  if (required && value === '') return [fieldRequired(field)];
  return Buffer.byteLength(value) > limit ? [fieldInvalid(field, '', `can have at most ${limit} characters`)] : [];
}

function immutable(next: Json, old: Json, field: string, path: string): FieldError[] {
  return isDeepStrictEqual(next[field] ?? null, old[field] ?? null)
    ? []
    : [fieldInvalid(path, next[field] ?? null, 'field is immutable')];
}

function truncatedToMicros(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /\.(\d+)Z$/.exec(value);
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) return undefined;
  const micros = match === null ? 0 : Number(`${match[1]!}000000`.slice(3, 6));
  return Math.floor(millis / 1000) * 1_000_000 + (millis % 1000) * 1000 + micros;
}

function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
