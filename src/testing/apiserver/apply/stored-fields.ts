/**
 * managedFields as the server stores them: one deep-frozen FieldsV1 object per distinct field set, and one
 * deep-frozen entry list per distinct list of entries, shared by every stored object that holds them (objects made
 * from one template, written in the same second, hold the same ones); and the set a stored FieldsV1 object encodes
 * remembered for the next writes, so entries a write leaves alone are neither parsed again nor rebuilt.
 * @module
 */
import { deepFreeze } from '../machinery/index.js';
import { FieldSet } from './fieldset.js';
import type { ManagedFieldsEntry } from './managed.js';
import { parseJson } from '../../../transport/index.js';

/** Shared frozen values by a text that identifies them; an entry goes when nothing stores its value any more. */
class Interned<T extends object> {
  private readonly byKey = new Map<string, WeakRef<T>>();
  private readonly forget = new FinalizationRegistry<string>((key) => {
    if (this.byKey.get(key)?.deref() === undefined) this.byKey.delete(key);
  });

  /** The value interned under `key`, or `make()` frozen and interned now. */
  get(key: string, make: () => T): T {
    let value = this.byKey.get(key)?.deref();
    if (value === undefined) {
      value = deepFreeze(make());
      this.byKey.set(key, new WeakRef(value));
      this.forget.register(value, key);
    }
    return value;
  }

  /** The value interned under `key`, if any. */
  find(key: string): T | undefined {
    return this.byKey.get(key)?.deref();
  }
}

/** Shared FieldsV1 objects by their JSON text. */
const byText = new Interned<object>();

/** A number per shared FieldsV1 object, which entry lists are told apart by. */
const fieldsIds = new WeakMap<object, number>();
let nextFieldsId = 0;

/** Shared entry lists by their entries' scalar fields and FieldsV1 numbers. */
const byEntries = new Interned<readonly ManagedFieldsEntry[]>();

/** Recently read shared FieldsV1 objects → their sets, least recently used first. */
const recentSets = new Map<object, FieldSet>();
/** The same pairs the other way round: a set read back → its shared FieldsV1 (sets are immutable once built). */
const recentFields = new Map<FieldSet, object>();
/** Bounds what the cache keeps alive when objects do not share their sets (about 7 KB per pod-sized set). */
const recentLimit = 1024;

function remember(fieldsV1: object, set: FieldSet): void {
  const known = recentSets.get(fieldsV1);
  if (known !== undefined) {
    recentSets.delete(fieldsV1);
    if (known !== set) recentFields.delete(known);
  }
  recentSets.set(fieldsV1, set);
  recentFields.set(set, fieldsV1);
  if (recentSets.size > recentLimit) {
    const [oldest, itsSet] = recentSets.entries().next().value!;
    recentSets.delete(oldest);
    recentFields.delete(itsSet);
  }
}

/**
 * The FieldsV1 object to store for `set`.
 *
 * # Guarantees
 * - Equal to `set.toFieldsV1()` (same keys in the same order), deep-frozen, and the same object for every equal set
 *   while any stored object still holds it: objects made from one template share their managedFields' FieldsV1.
 * - A set read back from a shared FieldsV1 and left unchanged by the write gets that FieldsV1 without being written
 *   out again. Sets a write made are not remembered (each is used once): their FieldsV1 is read once, on the next
 *   write, for every object that shares it.
 */
export function storedFieldsV1(set: FieldSet): object {
  const known = recentFields.get(set);
  if (known !== undefined) {
    remember(known, set);
    return known;
  }
  // Writes of objects from one template make equal sets one after another: comparing with the last few is
  // cheaper than writing the text out and looking it up.
  for (let i = 0; i < recentlyMade.length; i++) {
    const made = recentlyMade[i]!;
    if (made.set.equals(set)) {
      if (i > 0) recentlyMade.unshift(...recentlyMade.splice(i, 1));
      return made.fieldsV1;
    }
  }
  const text = set.toFieldsV1Text();
  const fieldsV1 = byText.get(text, () => {
    const made = parseJson(text) as object;
    fieldsIds.set(made, nextFieldsId++);
    return made;
  });
  recentlyMade.unshift({ set, fieldsV1 });
  if (recentlyMade.length > recentlyMadeLimit) recentlyMade.pop();
  return fieldsV1;
}

/** The last sets written out, with their shared FieldsV1, most recent first. */
const recentlyMade: { readonly set: FieldSet; readonly fieldsV1: object }[] = [];
const recentlyMadeLimit = 4;

/**
 * The entry list to store for `entries`, as `encodeManagedFields` builds them (FieldsV1 from
 * {@link storedFieldsV1}, members in one order, optional ones only when set).
 *
 * # Guarantees
 * - Equal to `entries` (same entries, members in the same order), deep-frozen, and the same list for equal entries
 *   while any stored object still holds it.
 */
export function storedEntries(entries: ManagedFieldsEntry[]): readonly ManagedFieldsEntry[] {
  for (let i = 0; i < recentLists.length; i++) {
    const list = recentLists[i]!;
    if (sameEntries(list, entries)) {
      if (i > 0) recentLists.unshift(...recentLists.splice(i, 1));
      return list;
    }
  }
  const shared = internEntries(entries);
  if (shared !== entries) {
    recentLists.unshift(shared);
    if (recentLists.length > recentlyMadeLimit) recentLists.pop();
  }
  return shared;
}

/** The last shared entry lists handed out, most recent first. */
const recentLists: (readonly ManagedFieldsEntry[])[] = [];

/** Equal lists as `encodeManagedFields` builds them (members in one order, optional ones only when set). */
function sameEntries(a: readonly ManagedFieldsEntry[], b: readonly ManagedFieldsEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.fieldsV1 !== y.fieldsV1 ||
      x.manager !== y.manager ||
      x.operation !== y.operation ||
      x.apiVersion !== y.apiVersion ||
      x.time !== y.time ||
      x.fieldsType !== y.fieldsType ||
      x.subresource !== y.subresource ||
      Object.keys(x).length !== Object.keys(y).length
    )
      return false;
  }
  return true;
}

function internEntries(entries: ManagedFieldsEntry[]): readonly ManagedFieldsEntry[] {
  const key: unknown[] = [];
  for (const e of entries) {
    const fields = typeof e.fieldsV1 === 'object' && e.fieldsV1 !== null ? fieldsIds.get(e.fieldsV1) : undefined;
    if (fields === undefined) return entries;
    key.push([
      e.manager ?? null,
      e.operation ?? null,
      e.apiVersion ?? null,
      e.time ?? null,
      e.fieldsType ?? null,
      e.subresource ?? null,
      Object.keys(e).join(),
      fields,
    ]);
  }
  return byEntries.get(JSON.stringify(key), () => entries);
}

/** Sets of FieldsV1 that requests carried (not stored ones), by JSON text, least recently used first. */
const sentSets = new Map<string, FieldSet>();

/**
 * `FieldSet.fromFieldsV1`, read once for the FieldsV1 this server stores or is sent again and again.
 *
 * # Guarantees
 * - Same result and errors as `FieldSet.fromFieldsV1(fieldsV1)`.
 * - A stored FieldsV1 object ({@link storedFieldsV1}) is looked up by identity; a FieldsV1 a request carries (a
 *   client sends back what it read; objects made from one template carry the same entries) by its JSON text, and
 *   only when it is plain nested objects, so that its text says everything about it.
 */
export function readFieldsV1(fieldsV1: unknown): FieldSet {
  if (typeof fieldsV1 !== 'object' || fieldsV1 === null) return FieldSet.fromFieldsV1(fieldsV1);
  if (fieldsIds.has(fieldsV1)) return readShared(fieldsV1);
  if (Object.isFrozen(fieldsV1) || !nestedObjectsOnly(fieldsV1)) return FieldSet.fromFieldsV1(fieldsV1);
  const text = JSON.stringify(fieldsV1);
  const stored = byText.find(text);
  if (stored !== undefined) return readShared(stored);
  let set = sentSets.get(text);
  if (set === undefined) {
    set = FieldSet.fromFieldsV1(fieldsV1);
    if (sentSets.size >= recentLimit) sentSets.delete(sentSets.keys().next().value!);
  } else sentSets.delete(text);
  sentSets.set(text, set);
  return set;
}

/** The set of a shared FieldsV1 object ({@link storedFieldsV1}), read once while it is in use. */
function readShared(fieldsV1: object): FieldSet {
  const set = recentSets.get(fieldsV1) ?? FieldSet.fromFieldsV1(fieldsV1);
  remember(fieldsV1, set);
  return set;
}

/** True when every value below is a plain object with plain-object values (what FieldsV1 is made of). */
function nestedObjectsOnly(value: object): boolean {
  if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child !== 'object' || child === null || !nestedObjectsOnly(child)) return false;
  }
  return true;
}
