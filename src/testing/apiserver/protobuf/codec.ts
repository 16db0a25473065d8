/**
 * Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) for built-in kinds, read and written with
 * protobufjs over the vendored upstream `generated.proto` files: the `k8s\0` magic + `runtime.Unknown` envelope,
 * and the JSON forms Kubernetes gives its special messages (Time, MicroTime, Quantity, IntOrString, RawExtension,
 * FieldsV1, bytes).
 * @module
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type Protobuf from 'protobufjs';
import { protobufPeer } from '../../peers.js';
import { parseJson } from '../../../transport/index.js';
import goFields from './go-fields.json' with { type: 'json' };

/** The protobuf media type. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
// The upstream .proto files live in vendor/ (copied next to the compiled module by `npm run build`).
const protoDir = fileURLToPath(new URL('./vendor/', import.meta.url));
const files = [
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
];

/** Proto package of each API group/version served in protobuf. */
const packages: Record<string, string> = {
  v1: 'k8s.io.api.core.v1',
  'apps/v1': 'k8s.io.api.apps.v1',
  'coordination.k8s.io/v1': 'k8s.io.api.coordination.v1',
  'events.k8s.io/v1': 'k8s.io.api.events.v1',
  'autoscaling/v1': 'k8s.io.api.autoscaling.v1',
};
const metaPackage = 'k8s.io.apimachinery.pkg.apis.meta.v1';

let loaded: Protobuf.Root | undefined;

function root(): Protobuf.Root {
  if (loaded === undefined) {
    const r = new (protobufPeer().Root)();
    r.resolvePath = (_origin, target) => join(protoDir, target);
    loaded = r.loadSync(files, { keepCase: true });
    loaded.resolveAll();
  }
  return loaded;
}

/** The message type of `kind` at `apiVersion` (Status and list kinds included), or undefined when not served. */
export function protobufType(apiVersion: string, kind: string): Protobuf.Type | undefined {
  const pkg = kind === 'Status' && apiVersion === 'v1' ? metaPackage : packages[apiVersion];
  if (pkg === undefined) return undefined;
  return (root().lookup(`${pkg}.${kind}`) as Protobuf.Type | null) ?? undefined;
}

/** Why a protobuf body could not be read. */
export class ProtobufError extends Error {}

const special = {
  time: `.${metaPackage}.Time`,
  microTime: `.${metaPackage}.MicroTime`,
  fieldsV1: `.${metaPackage}.FieldsV1`,
  duration: `.${metaPackage}.Duration`,
  quantity: '.k8s.io.apimachinery.pkg.api.resource.Quantity',
  intOrString: '.k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: '.k8s.io.apimachinery.pkg.runtime.RawExtension',
};

/** Message full name (`.k8s.io.api.apps.v1.DeploymentSpec`) → its fields named in a `go-fields.json` table. */
function byMessage(table: Readonly<Record<string, readonly string[]>>): ReadonlyMap<string, ReadonlySet<string>> {
  return new Map(Object.entries(table).map(([message, fields]) => [`.${message}`, new Set(fields)]));
}

/**
 * Fields the Go struct declares as pointers (`*int32`, `*bool`, `*SomeStruct`...). Go's protobuf writes them only
 * when set and every other field always, so presence on the wire means "set" only for these.
 */
const pointerFields = byMessage(goFields.pointers);

/** Fields embedded with `json:",inline"`: a nested message in protobuf, their members at the parent level in JSON. */
const inlineFields = byMessage(goFields.inline);

function long(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0);
}

function timeText(seconds: number, nanos: number, micro: boolean): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

/** A decoded message as Kubernetes JSON; undefined when it holds nothing (Go would omit it or write zero). */
function messageToJson(type: Protobuf.Type, message: Record<string, unknown>): unknown {
  switch (type.fullName) {
    case special.time:
    case special.microTime: {
      const seconds = long(message['seconds']);
      const nanos = long(message['nanos']);
      if (seconds === 0 && nanos === 0) return undefined;
      return timeText(seconds, nanos, type.fullName === special.microTime);
    }
    case special.quantity:
      return message['string'] || undefined;
    case special.intOrString:
      return long(message['type']) === 1 ? (message['strVal'] ?? '') : long(message['intVal']);
    case special.fieldsV1:
    case special.rawExtension: {
      const raw = message[type.fullName === special.fieldsV1 ? 'Raw' : 'raw'] as Uint8Array | undefined;
      return raw === undefined || raw.length === 0 ? undefined : parseJson(Buffer.from(raw).toString('utf8'));
    }
    case special.duration:
      return message['duration'] === undefined ? undefined : `${long(message['duration']) / 1e9}s`;
    default:
      break;
  }
  const pointers = pointerFields.get(type.fullName);
  const inline = inlineFields.get(type.fullName);
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(message, field.name)) continue;
    const value =
      pointers?.has(field.name) === true
        ? pointerToJson(field, message[field.name])
        : fieldToJson(field, message[field.name]);
    if (value === undefined) continue;
    if (inline?.has(field.name) === true && typeof value === 'object' && value !== null && !Array.isArray(value))
      Object.assign(out, value);
    else out[field.name] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const specialMessages: ReadonlySet<string> = new Set(Object.values(special));

/**
 * A field Go declares as a pointer, present on the wire: it was set, so its zero value is kept (`replicas: 0`,
 * `holderIdentity: ""`, `controller: false`, an empty struct as `{}`), as the real server keeps it. A special
 * message keeps its own JSON rule (a zero Time is no time at all).
 */
function pointerToJson(field: Protobuf.Field, value: unknown): unknown {
  if (field.repeated || field.map) return fieldToJson(field, value);
  if (field.resolvedType instanceof protobufPeer().Type) {
    const json = messageToJson(field.resolvedType, value as Record<string, unknown>);
    return json !== undefined || specialMessages.has(field.resolvedType.fullName) ? json : {};
  }
  return valueToJson(field, value);
}

function valueToJson(field: Protobuf.Field, value: unknown): unknown {
  if (field.resolvedType instanceof protobufPeer().Type)
    return messageToJson(field.resolvedType, value as Record<string, unknown>) ?? {};
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object' && value !== null) return long(value);
  return value;
}

/**
 * One field that is not a Go pointer. Go writes every such field, set or not, so zero scalars and empty values are
 * dropped (what `omitempty` JSON would show).
 */
function fieldToJson(field: Protobuf.Field, value: unknown): unknown {
  if (field.map) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return undefined;
    return Object.fromEntries(entries.map(([k, v]) => [k, valueToJson(field, v)]));
  }
  if (field.repeated) {
    const items = value as unknown[];
    return items.length === 0 ? undefined : items.map((v) => valueToJson(field, v));
  }
  if (field.resolvedType instanceof protobufPeer().Type)
    return messageToJson(field.resolvedType, value as Record<string, unknown>);
  // After conversion, so an int64 zero (a Long) and empty bytes ('' in base64) count as zero too.
  const json = valueToJson(field, value);
  return json === '' || json === 0 || json === false ? undefined : json;
}

/**
 * Reads a protobuf request body: the envelope, then the object it carries, as Kubernetes JSON.
 *
 * # Guarantees
 * - The magic, the envelope and the embedded type are checked; anything else is a {@link ProtobufError} with the
 *   reason (the caller answers 400 or 415).
 * - A field the Go struct declares as a pointer keeps an explicit zero (`replicas: 0`, `leaseTransitions: 0`,
 *   `holderIdentity: ""`): Go's protobuf writes it only when set. Every other field is written by Go whether set or
 *   not, so its zero value is dropped, as JSON `omitempty` drops it. Which fields are pointers, and which are inlined
 *   in JSON (`Volume`'s `volumeSource`, a `secretKeyRef`'s `name`), comes from the upstream Go structs
 *   (`go-fields.json`, generated by `npm run refresh:protobuf`).
 *
 * # Caveats
 * - A zero in a non-pointer field without `omitempty` (`containerPort: 0`) is dropped too, where Go's JSON would
 *   write it.
 */
export function decodeProtobuf(body: Buffer): { apiVersion: string; kind: string; object: Record<string, unknown> } {
  if (body.length < 4 || !body.subarray(0, 4).equals(magic))
    throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  const unknownType = root().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  // biome-ignore lint/suspicious/noExplicitAny: protobufjs decodes to untyped fields; they are checked below
  let envelope: Record<string, any>;
  try {
    // biome-ignore lint/suspicious/noExplicitAny: as above
    envelope = unknownType.decode(body.subarray(4)) as unknown as Record<string, any>;
  } catch (error) {
    throw new ProtobufError(`unable to decode the protobuf envelope: ${(error as Error).message}`);
  }
  const apiVersion = String(envelope['typeMeta']?.['apiVersion'] ?? '');
  const kind = String(envelope['typeMeta']?.['kind'] ?? '');
  const type = protobufType(apiVersion, kind);
  if (type === undefined)
    throw new ProtobufError(`no kind "${kind}" is registered for version "${apiVersion}" in protobuf`);
  let message: Record<string, unknown>;
  try {
    message = type.decode(envelope['raw'] ?? new Uint8Array()) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new ProtobufError(`unable to decode ${apiVersion} ${kind}: ${(error as Error).message}`);
  }
  const object = (messageToJson(type, message) ?? {}) as Record<string, unknown>;
  return { apiVersion, kind, object: { apiVersion, kind, ...object } };
}

function parseTime(text: string): { seconds: number; nanos: number } {
  const ms = Date.parse(text);
  const fraction = /\.(\d+)Z$/.exec(text)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(fraction.padEnd(9, '0').slice(0, 9)) };
}

function jsonToMessage(type: Protobuf.Type, value: unknown): unknown {
  switch (type.fullName) {
    case special.time:
    case special.microTime:
      return typeof value === 'string' ? parseTime(value) : {};
    case special.quantity:
      return { string: String(value) };
    case special.intOrString:
      return typeof value === 'number' ? { type: 0, intVal: value } : { type: 1, strVal: String(value) };
    case special.fieldsV1:
      return { Raw: Buffer.from(JSON.stringify(value)) };
    case special.rawExtension:
      return { raw: Buffer.from(JSON.stringify(value)) };
    case special.duration:
      return {};
    default:
      break;
  }
  const out: Record<string, unknown> = {};
  if (typeof value !== 'object' || value === null) return out;
  const inline = inlineFields.get(type.fullName);
  for (const field of type.fieldsArray) {
    // An inlined struct's members sit at this level in JSON: its message is built from this object.
    const v = inline?.has(field.name) === true ? value : (value as Record<string, unknown>)[field.name];
    if (v === undefined || v === null) continue;
    const one = (item: unknown) =>
      field.resolvedType instanceof protobufPeer().Type
        ? jsonToMessage(field.resolvedType, item)
        : field.type === 'bytes' && typeof item === 'string'
          ? Buffer.from(item, 'base64')
          : item;
    if (field.map)
      out[field.name] = Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, item]) => [k, one(item)]),
      );
    else if (field.repeated) out[field.name] = Array.isArray(v) ? v.map(one) : [];
    else out[field.name] = one(v);
  }
  return out;
}

/**
 * Writes `obj` (Kubernetes JSON, with `apiVersion` and `kind`) as a protobuf response body, or undefined when its
 * kind has no protobuf message here (the caller then answers JSON).
 */
export function encodeProtobuf(obj: Record<string, unknown>, apiVersion: string, kind: string): Buffer | undefined {
  const type = protobufType(apiVersion, kind);
  if (type === undefined) return undefined;
  const raw = type.encode(type.fromObject(jsonToMessage(type, obj) as Record<string, unknown>)).finish();
  const envelope = root().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const body = envelope
    .encode(envelope.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }))
    .finish();
  return Buffer.concat([magic, body]);
}
