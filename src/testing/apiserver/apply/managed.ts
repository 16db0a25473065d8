/**
 * `metadata.managedFields` ↔ managers: decoding and encoding entries, manager identifiers, the order
 * kube-apiserver writes entries in, and the cap on update managers.
 * @module
 */
import { timestamp } from '../machinery/index.js';
import type { FieldSet } from './fieldset.js';
import { readFieldsV1, storedEntries, storedFieldsV1 } from './stored-fields.js';
import type { ManagedFields } from './updater.js';

/** A `metav1.ManagedFieldsEntry` as JSON. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** Managers with their last-write times (RFC 3339, second precision). */
export interface Managed {
  readonly fields: ManagedFields;
  readonly times: Map<string, string | undefined>;
}

/** An empty `Managed`. */
export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** Why stored managedFields could not be read. */
export class ManagedFieldsError extends Error {}

/**
 * `BuildManagerIdentifier`: the JSON of the entry without time and fields (and without apiVersion for Apply),
 * in Go's field order, so the same manager at the same version always has the same key.
 */
export function managerIdentifier(entry: {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}): string {
  const id: Record<string, string> = {};
  if (entry.manager) id['manager'] = entry.manager;
  if (entry.operation) id['operation'] = entry.operation;
  if (entry.apiVersion && entry.operation !== 'Apply') id['apiVersion'] = entry.apiVersion;
  if (entry.subresource) id['subresource'] = entry.subresource;
  return JSON.stringify(id);
}

const parsedIdentifiers = new Map<string, ManagedFieldsEntry>();

/** A manager identifier's fields (read-only: parsed once and shared). */
function parseIdentifier(id: string): Readonly<ManagedFieldsEntry> {
  let parsed = parsedIdentifiers.get(id);
  if (parsed === undefined) {
    // A handful of managers write to a cluster; the bound only stops a pathological test from growing it forever.
    if (parsedIdentifiers.size >= 1024) parsedIdentifiers.clear();
    parsed = JSON.parse(id) as ManagedFieldsEntry;
    parsedIdentifiers.set(id, parsed);
  }
  return parsed;
}

/**
 * `DecodeManagedFields`: entries → managers. Throws {@link ManagedFieldsError} with the real messages for an
 * operation other than Apply/Update, a missing apiVersion, a fieldsType other than FieldsV1, or unreadable fields.
 */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw, i) => {
    const entry = (raw ?? {}) as ManagedFieldsEntry;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update')
      throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!entry.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (!entry.fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1')
      throw new ManagedFieldsError(
        `invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`,
      );
    const id = managerIdentifier(entry);
    let set: FieldSet;
    try {
      set = readFieldsV1(entry.fieldsV1 ?? {});
    } catch (error) {
      throw new ManagedFieldsError(
        `error decoding versioned set from ${JSON.stringify(entry)}: error decoding set: ${(error as Error).message}`,
      );
    }
    managed.fields.set(id, { set, apiVersion: entry.apiVersion, applied: entry.operation === 'Apply' });
    managed.times.set(id, normalizedTime(entry.time));
  });
  return managed;
}

/** A `metav1.Time` as the real server re-encodes it: RFC 3339 in seconds, UTC (clients may send milliseconds). */
function normalizedTime(time: unknown): string | undefined {
  if (typeof time !== 'string') return undefined;
  // Entries of one object, and of objects written in the same second, mostly carry the same time.
  if (time === lastTime) return lastNormalized;
  const ms = Date.parse(time);
  lastTime = time;
  lastNormalized = Number.isNaN(ms) ? undefined : timestamp(ms);
  return lastNormalized;
}

let lastTime: string | undefined;
let lastNormalized: string | undefined;

function seconds(time: string | undefined): number {
  return time === undefined ? 0 : Math.floor(Date.parse(time) / 1000);
}

/**
 * `encodeManagedFields`: managers → entries, sorted as the real server sorts them (operation, then time in
 * seconds, then manager, apiVersion and subresource). Undefined when there are none (the field is omitted).
 * The list is frozen and shared (see `storedEntries`): store it as it is.
 */
export function encodeManagedFields(managed: Managed): readonly ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, owned] of managed.fields) {
    const parsed = parseIdentifier(id);
    const time = managed.times.get(id);
    entries.push({
      manager: parsed.manager ?? '',
      operation: owned.applied ? 'Apply' : (parsed.operation ?? 'Update'),
      apiVersion: owned.apiVersion,
      ...(time !== undefined ? { time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: storedFieldsV1(owned.set),
      ...(parsed.subresource ? { subresource: parsed.subresource } : {}),
    });
  }
  const text = (s: string | undefined) => s ?? '';
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return text(p.operation) < text(q.operation) ? -1 : 1;
    const ps = seconds(p.time);
    const qs = seconds(q.time);
    if (ps !== qs) return ps < qs ? -1 : 1;
    for (const field of ['manager', 'apiVersion', 'subresource'] as const) {
      if (text(p[field]) !== text(q[field])) return text(p[field]) < text(q[field]) ? -1 : 1;
    }
    return 0;
  });
  return storedEntries(entries);
}

/** The most update managers an object keeps; older ones are folded into `ancient-changes` (`capManagersManager`). */
export const maxUpdateManagers = 10;

/** Folds the oldest update managers beyond {@link maxUpdateManagers} into one `ancient-changes` entry per version. */
export function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields].filter(([, owned]) => !owned.applied).map(([id]) => id);
  if (updaters.length <= maxUpdateManagers) return;
  updaters.sort((a, b) => {
    const sa = seconds(managed.times.get(a));
    const sb = seconds(managed.times.get(b));
    return sa !== sb ? sa - sb : a < b ? -1 : a > b ? 1 : 0;
  });
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const id = updaters[i]!;
    const owned = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: owned.apiVersion });
    const first = firstByVersion.get(owned.apiVersion);
    if (first === undefined) {
      firstByVersion.set(owned.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    const merged = managed.fields.get(bucket)!;
    managed.fields.set(bucket, {
      set: owned.set.union(merged.set),
      apiVersion: owned.apiVersion,
      applied: owned.applied,
    });
    managed.fields.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
}
