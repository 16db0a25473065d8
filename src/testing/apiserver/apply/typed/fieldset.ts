/**
 * Validation of a value against its type, and the set of fields a value sets (`TypedValue.ToFieldSet`).
 * @module
 */
import { FieldSet } from '../fieldset.js';
import { fieldElement, type Path, type PathElement } from '../path.js';
import type { ScalarKind, TypeRef, TypedSchema } from '../schema.js';
import { isMap, type Json } from '../value.js';
import { asList, asMap, deduceAtom, elementText, fieldType, handleAtom, listItemElement, prefixed, resolveAtom, type TypedError } from './common.js';

/** Go's `%T` of an unstructured value. */
function goType(value: Json): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isMap(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

function scalarErrors(kind: ScalarKind, value: Json | undefined): TypedError[] {
  if (value === undefined || value === null) return [];
  const error = (message: string): TypedError[] => [{ path: '', message }];
  switch (kind) {
    case 'numeric': return typeof value === 'number' ? [] : error(`expected numeric (int or float), got ${goType(value)}`);
    case 'string': return typeof value === 'string' ? [] : error(`expected string, got ${JSON.stringify(value)}`);
    case 'boolean': return typeof value === 'boolean' ? [] : error(`expected boolean, got ${JSON.stringify(value)}`);
    default: return typeof value === 'object' ? error(`expected any scalar, got ${JSON.stringify(value)}`) : [];
  }
}

/**
 * Checks `value` against `ref`, as `typed.AsTyped` does when kube-apiserver turns an object into a typed value.
 *
 * # Guarantees
 * - Reports wrong scalar kinds, maps and lists where the other is expected, fields the schema does not declare,
 *   associative-list items without keys, and (unless `allowDuplicates`) duplicate keys, each with its SMD path.
 */
export function validate(typed: TypedSchema, value: Json | undefined, allowDuplicates: boolean, ref: TypeRef = typed.root): TypedError[] {
  const atom = deduceAtom(resolveAtom(typed.schema, ref), value);
  return handleAtom<TypedError[]>(atom, {
    scalar: () => scalarErrors(atom.scalar!, value),
    list: (type) => {
      if (value === null || value === undefined) return [];
      if (!Array.isArray(value)) return [{ path: '', message: `expected list, got ${JSON.stringify(value)}` }];
      const errors: TypedError[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < value.length; i++) {
        let element: PathElement = { kind: 'index', index: i };
        if (type.relationship === 'associative') {
          try {
            element = listItemElement(typed.schema, type, value[i]!);
          } catch (error) {
            return [...errors, { path: '', message: `element ${i}: ${(error as Error).message}` }];
          }
          const id = elementText(element);
          if (seen.has(id) && !allowDuplicates) errors.push({ path: '', message: `duplicate entries for key ${id}` });
          seen.add(id);
        }
        errors.push(...prefixed(validate(typed, value[i], allowDuplicates, type.elementType), elementText(element)));
      }
      return errors;
    },
    map: (type) => {
      if (value === null || value === undefined) return [];
      if (!isMap(value)) return [{ path: '', message: `expected map, got ${JSON.stringify(value)}` }];
      const errors: TypedError[] = [];
      for (const [key, child] of Object.entries(value)) {
        const childType = fieldType(type, key);
        if (childType === undefined) return [...errors, { path: `.${key}`, message: 'field not declared in schema' }];
        errors.push(...prefixed(validate(typed, child, allowDuplicates, childType), `.${key}`));
      }
      return errors;
    },
  });
}

/**
 * `ToFieldSet`: every field path `value` sets under `typed`.
 *
 * # Guarantees
 * - Scalars and atomic lists/maps are members; associative-list items are members with their children; map
 *   entries that are not declared struct fields (labels, deduced maps), empty maps and nulls are members.
 * - Duplicated list items count once, as the item only (as SMD does for live objects).
 */
export function toFieldSet(typed: TypedSchema, value: Json | undefined): FieldSet {
  const set = new FieldSet();
  collect(typed, value, typed.root, [], set);
  return set;
}

function collect(typed: TypedSchema, value: Json | undefined, ref: TypeRef | undefined, path: Path, set: FieldSet): void {
  const resolved = ref === undefined ? undefined : typed.schema.resolve(ref);
  if (resolved === undefined) return;
  const atom = deduceAtom(resolved, value);
  if (atom.map === undefined && atom.scalar === undefined && atom.list === undefined) return;
  handleAtom<void>(atom, {
    scalar: () => set.insert(path),
    list: (type) => {
      if (type.relationship === 'atomic') return set.insert(path);
      const list = asList(value);
      if (list === undefined) return;
      const elements = list.map((item) => {
        try {
          return listItemElement(typed.schema, type, item);
        } catch {
          return undefined;
        }
      });
      const counts = new Map<string, number>();
      for (const e of elements) if (e !== undefined) counts.set(elementText(e), (counts.get(elementText(e)) ?? 0) + 1);
      const duplicatesDone = new Set<string>();
      elements.forEach((e, i) => {
        if (e === undefined) return;
        const id = elementText(e);
        if (counts.get(id)! > 1) {
          if (!duplicatesDone.has(id)) set.insert([...path, e]);
          duplicatesDone.add(id);
          return;
        }
        collect(typed, list[i], type.elementType, [...path, e], set);
        set.insert([...path, e]);
      });
    },
    map: (type) => {
      if (type.relationship === 'atomic') return set.insert(path);
      const map = asMap(value);
      if (map === undefined) return;
      for (const [key, child] of Object.entries(map)) {
        const childPath = [...path, fieldElement(key)];
        collect(typed, child, fieldType(type, key), childPath, set);
        if (child === null || (isMap(child) && Object.keys(child).length === 0) || !type.fields.has(key)) set.insert(childPath);
      }
    },
  });
}
