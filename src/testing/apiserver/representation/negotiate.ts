/**
 * Content negotiation for responses: full objects, PartialObjectMetadata(List), or a minimal Table, chosen from
 * the Accept header the way kube-apiserver walks it (first acceptable entry wins).
 * @module
 */
import { eventAtVersion } from '../registry/index.js';
import { protobufMediaType } from '../protobuf/index.js';
import { type KubeObject, notAcceptable } from '../machinery/index.js';
import { printerFor } from './tables.js';

/** What a response carries. */
export type Representation = 'object' | 'metadata' | 'table';

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
}

function parseAccept(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((entry) => {
      const [type = '', ...rest] = entry.split(';').map((s) => s.trim());
      const params = new Map<string, string>();
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
      }
      return { type: type.toLowerCase(), params };
    })
    .filter((m) => m.type !== '');
}

/**
 * Picks the representation for a request.
 *
 * # Guarantees
 * - `as=PartialObjectMetadataList` is honoured on lists, `as=PartialObjectMetadata` on gets and watches, and
 *   `as=Table` (meta.k8s.io v1/v1beta1) on gets, lists and watches; plain `application/json`, `*\/*` or no Accept
 *   give full objects.
 * - When nothing in the header is acceptable the answer is 406, as from the real server.
 */
export function negotiate(accept: string | undefined, verb: 'get' | 'list' | 'watch'): Representation {
  if (accept === undefined || accept.trim() === '') return 'object';
  for (const range of parseAccept(accept)) {
    // Protobuf is served for whole objects and lists (never watch streams): see `prefersProtobuf`.
    if (range.type === protobufMediaType && verb !== 'watch' && !range.params.has('as')) return 'object';
    if (range.type !== 'application/json' && range.type !== '*/*' && range.type !== 'application/*') continue;
    const as = range.params.get('as');
    if (as === undefined) return 'object';
    const g = range.params.get('g');
    const v = range.params.get('v');
    if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
    if (as === 'Table') return 'table';
    if (as === 'PartialObjectMetadataList' && verb === 'list') return 'metadata';
    if (as === 'PartialObjectMetadata' && verb !== 'list') return 'metadata';
  }
  throw notAcceptable();
}

/** True when the first usable entry of the Accept header is protobuf (without an `as=` representation). */
export function prefersProtobuf(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const range of parseAccept(accept)) {
    if (range.type === protobufMediaType) {
      if (!range.params.has('as')) return true;
      continue;
    }
    if (range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*') return false;
  }
  return false;
}

/** The PartialObjectMetadata form of an object. */
export function toPartial(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/**
 * A `meta.k8s.io/v1 Table` for `objects` with the kind's printer columns (Pods and Deployments like the real
 * server, Name/Created At otherwise); each row carries the object as PartialObjectMetadata.
 */
export function toTable(
  nowMs: number,
  objects: readonly KubeObject[],
  listMeta: Record<string, unknown>,
  withColumns = true,
  kind = '',
  custom = true,
): KubeObject {
  const printer = printerFor(kind, custom);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: withColumns ? printer.columns : null,
    rows: objects.map((o) => ({ cells: printer.cells(o, nowMs), object: toPartial(o) })),
  };
}

/**
 * The object as served at `apiVersion`: CRD versions share storage, so only `apiVersion` is rewritten (None
 * conversion); a stored core Event read through events.k8s.io/v1 is converted field by field.
 */
export function atVersion(obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.apiVersion === apiVersion) return obj;
  return eventAtVersion(obj, apiVersion) ?? { ...obj, apiVersion };
}

/** An object in the negotiated representation (Table is handled by the caller, it wraps many). */
export function represent(obj: KubeObject, apiVersion: string, representation: Representation): KubeObject {
  return representation === 'metadata' ? toPartial(obj) : atVersion(obj, apiVersion);
}
