/**
 * FieldsV1 as the server stores them: one deep-frozen FieldsV1 object per distinct field set, shared by every stored
 * object whose managedFields hold that set, and the set a stored FieldsV1 object encodes remembered for the next
 * writes, so entries a write leaves alone are neither parsed again nor rebuilt.
 * @module
 */
import { deepFreeze } from '../object.js';
import { FieldSet } from './fieldset.js';

/** Shared FieldsV1 objects by their JSON text; an entry goes when nothing stores its object any more. */
const byText = new Map<string, WeakRef<object>>();
const forgetText = new FinalizationRegistry<string>((text) => {
  if (byText.get(text)?.deref() === undefined) byText.delete(text);
});

/** The shared FieldsV1 object of each set built here or read back (sets are immutable once built). */
const fieldsOfSet = new WeakMap<FieldSet, object>();

/** Recently read or written shared FieldsV1 objects → their sets, least recently used first. */
const recentSets = new Map<object, FieldSet>();
/** Bounds what the cache keeps alive when objects do not share their sets (about 7 KB per pod-sized set). */
const recentLimit = 1024;

function remember(fieldsV1: object, set: FieldSet): void {
  recentSets.delete(fieldsV1);
  recentSets.set(fieldsV1, set);
  if (recentSets.size > recentLimit) recentSets.delete(recentSets.keys().next().value!);
}

/**
 * The FieldsV1 object to store for `set`.
 *
 * # Guarantees
 * - Equal to `set.toFieldsV1()` (same keys in the same order), deep-frozen, and the same object for every equal set
 *   while any stored object still holds it: objects made from one template share their managedFields' FieldsV1.
 */
export function storedFieldsV1(set: FieldSet): object {
  let fieldsV1 = fieldsOfSet.get(set);
  if (fieldsV1 === undefined) {
    const text = set.toFieldsV1Text();
    fieldsV1 = byText.get(text)?.deref();
    if (fieldsV1 === undefined) {
      fieldsV1 = deepFreeze(JSON.parse(text) as object);
      byText.set(text, new WeakRef(fieldsV1));
      forgetText.register(fieldsV1, text);
    }
    fieldsOfSet.set(set, fieldsV1);
  }
  remember(fieldsV1, set);
  return fieldsV1;
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
  const known = recentSets.get(fieldsV1);
  if (known !== undefined) {
    remember(fieldsV1, known);
    return known;
  }
  if (Object.isFrozen(fieldsV1) || !nestedObjectsOnly(fieldsV1)) return FieldSet.fromFieldsV1(fieldsV1);
  const text = JSON.stringify(fieldsV1);
  const stored = byText.get(text)?.deref();
  if (stored !== undefined) {
    const set = recentSets.get(stored) ?? FieldSet.fromFieldsV1(stored);
    remember(stored, set);
    return set;
  }
  let set = sentSets.get(text);
  if (set === undefined) {
    set = FieldSet.fromFieldsV1(fieldsV1);
    if (sentSets.size >= recentLimit) sentSets.delete(sentSets.keys().next().value!);
  } else sentSets.delete(text);
  sentSets.set(text, set);
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
