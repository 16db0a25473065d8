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

/**
 * `FieldSet.fromFieldsV1`, read once for the shared objects {@link storedFieldsV1} hands out.
 *
 * # Guarantees
 * - Same result and errors as `FieldSet.fromFieldsV1(fieldsV1)`; only frozen objects this module made are looked
 *   up, so a FieldsV1 object that a request carried, or one stored in another form, is always read afresh.
 */
export function readFieldsV1(fieldsV1: unknown): FieldSet {
  if (typeof fieldsV1 === 'object' && fieldsV1 !== null) {
    const known = recentSets.get(fieldsV1);
    if (known !== undefined) {
      remember(fieldsV1, known);
      return known;
    }
  }
  return FieldSet.fromFieldsV1(fieldsV1);
}
