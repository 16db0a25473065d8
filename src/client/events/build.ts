/**
 * From an `event()` call to the `events.k8s.io/v1` object, its isomorphism key and its spam key, checked the way
 * the API server validates Events, so a bad call is rejected here with a clear error instead of by the server.
 */
import { isPartialObjectMetadata } from '../../objects/index.js';
import type { EventDetails, EventSubject } from './recording.js';
import type { EventReference, RecordedEvent } from './types.js';

/** The API's limit on `note`, in bytes (`NoteLengthLimit`). */
export const NOTE_LIMIT_BYTES = 1024;
/** The API's limit on `reason`, `action` and `reportingInstance` (`ReasonLengthLimit` and siblings). */
const FIELD_LIMIT = 128;
/** Events of cluster-scoped objects go to this namespace, as client-go's `makeEvent` does. */
const CLUSTER_SCOPED_EVENT_NAMESPACE = 'default';

/** An `event()` call the API would refuse; `field` names what is wrong. */
export class InvalidEventError extends Error {
  /** Always `'InvalidEventError'`. */
  override readonly name = 'InvalidEventError';
  constructor(
    /** The field at fault, e.g. `reason`, `regarding.kind`. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** Who reports. */
export interface ReportingIdentity {
  readonly reportingController: string;
  readonly reportingInstance: string;
}

/** One validated occurrence. */
export interface BuiltEvent {
  /** The object to create (without `series`). */
  readonly body: RecordedEvent;
  /** client-go's `getKey`: occurrences with the same key are isomorphic and fold into one series. */
  readonly key: string;
  /** client-go's `getSpamKey`: the object and the event type. */
  readonly spamKey: string;
  readonly truncated: boolean;
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** A DNS-1123 subdomain (object names, such as an Event's): at most 253 characters. */
export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/**
 * Why `value` is not a qualified name (`[prefix/]name`, as label keys and `reportingController`), or `undefined`
 * when it is one.
 */
export function qualifiedNameProblem(value: string): string | undefined {
  const parts = value.split('/');
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length > 2) return 'must be a qualified name: at most one "/"';
  if (parts.length === 2 && (parts[0] === '' || !isDnsSubdomain(parts[0]!))) {
    return 'must be a qualified name: the prefix before "/" must be a DNS subdomain (lower case, at most 253 characters)';
  }
  if (name === '' || name.length > 63 || !QUALIFIED_NAME_PART.test(name)) {
    return 'must be a qualified name: at most 63 characters of [A-Za-z0-9-_.], starting and ending with a letter or digit';
  }
  return undefined;
}

/**
 * A MicroTime for a wall-clock time, ms since the epoch: RFC 3339 in UTC with six fractional digits, as the API
 * serializes `metav1.MicroTime` (`2026-01-01T00:00:00.000000Z`).
 */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.floor((ms - whole) * 1000);
  return new Date(whole).toISOString().replace(/Z$/, `${String(micros).padStart(3, '0')}Z`);
}

/** Gives Event names; one per recorder. */
export type EventNamer = (objectName: string) => string;

/**
 * Names Events `<object name>.<hex nanoseconds>`, as client-go's `GenerateEventName`, with the wall-clock time from
 * `now`.
 * The sub-millisecond digits are a random offset plus a sequence number, so names from one recorder never repeat
 * (up to a million per millisecond) and two recorders naming events about one object in the same millisecond
 * almost never collide (a collision is handled on creation). Where that is no valid name (a long or unusual
 * object name), `event.<hex>` instead (client-go: a UUID).
 */
export function eventNamer(now: () => number, random: () => number): EventNamer {
  const offset = Math.floor(clamp01(random()) * 999_999);
  let sequence = 0;
  return (objectName) => {
    const subMs = (offset + sequence++) % 1_000_000;
    const nanos = BigInt(Math.max(0, Math.floor(now()))) * 1_000_000n + BigInt(subMs);
    const suffix = nanos.toString(16);
    const name = `${objectName}.${suffix}`;
    return isDnsSubdomain(name) ? name : `event.${suffix}`;
  };
}

/**
 * Cuts `text` to at most `limit` bytes of UTF-8 without splitting a character.
 *
 * # Guarantees
 * - The result is a prefix of `text` (by code points) and encodes to at most `limit` bytes.
 */
export function truncateUtf8(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the character the cut would split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Validates one occurrence and builds its Event.
 *
 * # Guarantees
 * - Throws `InvalidEventError` (and nothing else) for what the API server would refuse: a type other than
 *   Normal/Warning, an empty or over-long reason or action, a subject without kind or name. A note over 1024
 *   bytes is cut, never refused.
 * - The Event goes to the regarding object's namespace, or `default` for a cluster-scoped object.
 * - `eventTime` is `wallClockMs`, the occurrence's wall-clock time.
 */
export function buildEvent(
  regarding: EventSubject,
  details: EventDetails,
  identity: ReportingIdentity,
  wallClockMs: number,
  nameFor: EventNamer,
): BuiltEvent {
  if (details === null || typeof details !== 'object')
    throw new InvalidEventError('details', 'must be an object { type, reason, action, note?, related? }');
  const { type, reason, action } = details;
  if (type !== 'Normal' && type !== 'Warning')
    throw new InvalidEventError('type', `must be "Normal" or "Warning", got ${JSON.stringify(type)}`);
  requireText('reason', reason);
  requireText('action', action);
  if (details.note !== undefined && typeof details.note !== 'string')
    throw new InvalidEventError('note', 'must be a string');
  const regardingRef = referenceOf(regarding, 'regarding');
  const relatedRef = details.related === undefined ? undefined : referenceOf(details.related, 'related');
  const note = details.note === undefined ? undefined : truncateUtf8(details.note, NOTE_LIMIT_BYTES);
  const body: RecordedEvent = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: {
      name: nameFor(regardingRef.name!),
      namespace: regardingRef.namespace ?? CLUSTER_SCOPED_EVENT_NAMESPACE,
    },
    eventTime: microTime(wallClockMs),
    reportingController: identity.reportingController,
    reportingInstance: identity.reportingInstance,
    action,
    reason,
    type,
    ...(note === undefined ? {} : { note }),
    regarding: regardingRef,
    ...(relatedRef === undefined ? {} : { related: relatedRef }),
  };
  const key = JSON.stringify([
    type,
    action,
    reason,
    identity.reportingController,
    identity.reportingInstance,
    regardingRef,
    relatedRef ?? null,
  ]);
  const spamKey = JSON.stringify([
    regardingRef.apiVersion,
    regardingRef.kind,
    regardingRef.namespace,
    regardingRef.name,
    regardingRef.uid,
    type,
  ]);
  return { body, key, spamKey, truncated: note !== details.note };
}

function requireText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') throw new InvalidEventError(field, 'is required (a non-empty string)');
  if (value.length > FIELD_LIMIT)
    throw new InvalidEventError(field, `can have at most ${FIELD_LIMIT} characters, got ${value.length}`);
}

const REFERENCE_FIELDS = ['apiVersion', 'kind', 'namespace', 'name', 'uid', 'resourceVersion', 'fieldPath'] as const;

/**
 * The reference to a subject, with its fields in one fixed order (so equal references have equal keys) and empty
 * ones left out. Like client-go's `GetReference`, it keeps the object's resourceVersion.
 */
export function referenceOf(subject: EventSubject, field: string): EventReference {
  if (subject === null || typeof subject !== 'object')
    throw new InvalidEventError(field, 'must be an object or an object reference');
  const meta =
    'metadata' in subject && subject.metadata !== null && typeof subject.metadata === 'object'
      ? subject.metadata
      : undefined;
  const source: Record<string, unknown> =
    meta === undefined
      ? { ...subject }
      : {
          apiVersion: subject.apiVersion,
          kind: subject.kind,
          namespace: meta.namespace,
          name: meta.name,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
        };
  const reference: Record<string, string> = {};
  for (const name of REFERENCE_FIELDS) {
    const value = source[name];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string')
      throw new InvalidEventError(`${field}.${name}`, `must be a string, got ${typeof value}`);
    reference[name] = value;
  }
  if (reference['kind'] === undefined) {
    throw new InvalidEventError(
      `${field}.kind`,
      'is required: the items of a list call carry no kind, so pass the object as an informer or a write gives it, or a reference { apiVersion, kind, namespace, name, uid }',
    );
  }
  if (isPartialObjectMetadata(reference['apiVersion'], reference['kind'])) {
    throw new InvalidEventError(
      `${field}.kind`,
      'is PartialObjectMetadata, a metadata-only view that does not say what the object is: pass a reference { apiVersion, kind, namespace, name, uid } of its resource',
    );
  }
  if (reference['name'] === undefined) throw new InvalidEventError(`${field}.name`, 'is required');
  return reference as EventReference;
}

function clamp01(x: number): number {
  return Number.isNaN(x) ? 0 : Math.min(1, Math.max(0, x));
}
