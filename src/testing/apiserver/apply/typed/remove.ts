/**
 * `TypedValue.RemoveItems`: a value without the given field paths (what prune takes away).
 * @module
 */
import type { FieldSet } from '../fieldset.js';
import { fieldElement } from '../path.js';
import type { TypeRef, TypedSchema } from '../schema.js';
import { isMap, type Json, type JsonMap } from '../value.js';
import { deducedMembers, fieldType, isEmptyMap, listItemElementOrNone, shapeOf } from './common.js';

/**
 * Removes the paths of `remove` from `value`.
 *
 * # Guarantees
 * - Like SMD: a map or list emptied by the removal becomes absent (undefined at the top, `null` inside a map,
 *   which callers drop); atomic lists and maps are removed only as a whole; inputs are never changed.
 */
export function removeItems(typed: TypedSchema, value: Json | undefined, remove: FieldSet): Json | undefined {
  return removeFrom(typed, value, remove, typed.root);
}

function removeFrom(
  typed: TypedSchema,
  value: Json | undefined,
  remove: FieldSet,
  ref: TypeRef | undefined,
): Json | undefined {
  const atom = ref === undefined ? undefined : typed.schema.resolve(ref);
  if (atom === undefined) return value;
  const members = deducedMembers(atom, value);
  if (members === 0) return value;
  switch (shapeOf(members)) {
    case 'scalar':
      return value;
    case 'list': {
      const type = atom.list!;
      if (!Array.isArray(value) || value.length === 0 || type.relationship === 'atomic') return undefined;
      const items: Json[] = [];
      for (const item of value) {
        const element = listItemElementOrNone(typed.schema, type, item);
        if (element === undefined) {
          items.push(item);
          continue;
        }
        if (remove.hasMember(element)) continue;
        const below = remove.withPrefix(element);
        items.push(below.empty() ? item : (removeFrom(typed, item, below, type.elementType) ?? null));
      }
      return items.length > 0 ? items : undefined;
    }
    case 'map': {
      const type = atom.map!;
      if (!isMap(value) || isEmptyMap(value) || type.relationship === 'atomic') return undefined;
      const out: JsonMap = {};
      for (const key of Object.keys(value)) {
        const element = fieldElement(key);
        if (remove.hasMember(element)) continue;
        const below = remove.withPrefix(element);
        out[key] = below.empty() ? value[key]! : (removeFrom(typed, value[key], below, fieldType(type, key)) ?? null);
      }
      // Counted as own keys: a `__proto__` key assigned here sets the prototype instead, as before.
      return isEmptyMap(out) ? undefined : out;
    }
  }
}
