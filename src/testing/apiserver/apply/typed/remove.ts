/**
 * `TypedValue.RemoveItems`: a value without the given field paths (what prune takes away).
 * @module
 */
import type { FieldSet } from '../fieldset.js';
import { fieldElement } from '../path.js';
import type { TypeRef, TypedSchema } from '../schema.js';
import { isMap, type Json, type JsonMap } from '../value.js';
import { deduceAtom, fieldType, handleAtom, listItemElement } from './common.js';

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

function removeFrom(typed: TypedSchema, value: Json | undefined, remove: FieldSet, ref: TypeRef | undefined): Json | undefined {
  const resolved = ref === undefined ? undefined : typed.schema.resolve(ref);
  if (resolved === undefined) return value;
  const atom = deduceAtom(resolved, value);
  if (atom.map === undefined && atom.scalar === undefined && atom.list === undefined) return value;
  return handleAtom<Json | undefined>(atom, {
    scalar: () => value,
    list: (type) => {
      if (!Array.isArray(value) || value.length === 0 || type.relationship === 'atomic') return undefined;
      const items: Json[] = [];
      for (const item of value) {
        let element;
        try {
          element = listItemElement(typed.schema, type, item);
        } catch {
          items.push(item);
          continue;
        }
        if (remove.hasMember(element)) continue;
        const below = remove.withPrefix(element);
        items.push(below.empty() ? item : removeFrom(typed, item, below, type.elementType) ?? null);
      }
      return items.length > 0 ? items : undefined;
    },
    map: (type) => {
      if (!isMap(value) || Object.keys(value).length === 0 || type.relationship === 'atomic') return undefined;
      const out: JsonMap = {};
      for (const [key, child] of Object.entries(value)) {
        const element = fieldElement(key);
        if (remove.hasMember(element)) continue;
        const below = remove.withPrefix(element);
        out[key] = below.empty() ? child : removeFrom(typed, child, below, fieldType(type, key)) ?? null;
      }
      return Object.keys(out).length > 0 ? out : undefined;
    },
  });
}
