/**
 * Validation of a value against its type, and the set of fields a value sets (`TypedValue.ToFieldSet`).
 * @module
 */
import { FieldSetBuilder } from '../builder.js';
import type { FieldSet } from '../fieldset.js';
import { fieldElement, type PathElement } from '../path.js';
import type { ScalarKind, TypeRef, TypedSchema } from '../schema.js';
import { isMap, type Json } from '../value.js';
import {
  asList,
  asMap,
  deducedMembers,
  elementText,
  fieldType,
  isEmptyMap,
  listItemElement,
  listItemElementOrNone,
  resolveAtom,
  shapeOf,
  type TypedError,
} from './common.js';

/** Go's `%T` of an unstructured value. */
function goType(value: Json): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isMap(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

/** What is wrong with `value` as a scalar of `kind`, if anything. */
function scalarError(kind: ScalarKind, value: Json | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (kind) {
    case 'numeric':
      return typeof value === 'number' ? undefined : `expected numeric (int or float), got ${goType(value)}`;
    case 'string':
      return typeof value === 'string' ? undefined : `expected string, got ${JSON.stringify(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, got ${JSON.stringify(value)}`;
    default:
      return typeof value === 'object' ? `expected any scalar, got ${JSON.stringify(value)}` : undefined;
  }
}

/**
 * Checks `value` against `ref`, as `typed.AsTyped` does when kube-apiserver turns an object into a typed value.
 *
 * # Guarantees
 * - Reports wrong scalar kinds, maps and lists where the other is expected, fields the schema does not declare,
 *   associative-list items without keys, and (unless `allowDuplicates`) duplicate keys, each with its SMD path.
 */
export function validate(
  typed: TypedSchema,
  value: Json | undefined,
  allowDuplicates: boolean,
  ref: TypeRef = typed.root,
): TypedError[] {
  const check: Check = { typed, allowDuplicates, prefix: [], location: [], errors: [] };
  validateNode(check, value, ref);
  return check.errors;
}

/**
 * Every field of `value` that its type does not declare, as the path from the root to it (map keys and list
 * indexes), in the order of `value`'s own keys: what a strict decoder calls an unknown field.
 *
 * # Guarantees
 * - The same walk as {@link validate}, but it goes on after an undeclared field, and through lists whose items
 *   cannot be keyed; other problems (wrong scalar kinds, duplicates) are not its business and are skipped.
 * - Fields under a map that preserves unknown fields (`x-kubernetes-preserve-unknown-fields`, deduced or
 *   untyped maps) are declared by definition.
 */
export function undeclaredFields(
  typed: TypedSchema,
  value: Json | undefined,
  ref: TypeRef = typed.root,
): (string | number)[][] {
  const check: Check = { typed, allowDuplicates: true, prefix: [], location: [], errors: [], undeclared: [] };
  validateNode(check, value, ref);
  return check.undeclared!;
}

/** One validation in progress: the texts of the path elements above the node, and the errors so far. */
interface Check {
  readonly typed: TypedSchema;
  readonly allowDuplicates: boolean;
  readonly prefix: string[];
  /** The keys and indexes above the node (for {@link undeclaredFields}). */
  readonly location: (string | number)[];
  readonly errors: TypedError[];
  /** Set when collecting undeclared fields instead of stopping at the first. */
  readonly undeclared?: (string | number)[][];
}

function report(check: Check, path: string, message: string): void {
  check.errors.push({ path: check.prefix.join('') + path, message });
}

function validateChild(check: Check, text: string, step: string | number, value: Json | undefined, ref: TypeRef): void {
  check.prefix.push(text);
  check.location.push(step);
  validateNode(check, value, ref);
  check.location.pop();
  check.prefix.pop();
}

function validateNode(check: Check, value: Json | undefined, ref: TypeRef): void {
  const { typed } = check;
  const atom = resolveAtom(typed.schema, ref);
  const members = deducedMembers(atom, value);
  switch (shapeOf(members)) {
    case 'scalar': {
      const message = scalarError(atom.scalar!, value);
      if (message !== undefined) report(check, '', message);
      return;
    }
    case 'list': {
      const type = atom.list!;
      if (value === null || value === undefined) return;
      if (!Array.isArray(value)) return report(check, '', `expected list, got ${JSON.stringify(value)}`);
      const seen = new Set<string>();
      for (let i = 0; i < value.length; i++) {
        let element: PathElement = { kind: 'index', index: i };
        if (type.relationship === 'associative') {
          try {
            element = listItemElement(typed.schema, type, value[i]!);
          } catch (error) {
            if (check.undeclared !== undefined) {
              validateChild(check, `[${i}]`, i, value[i], type.elementType);
              continue;
            }
            return report(check, '', `element ${i}: ${(error as Error).message}`);
          }
          const id = elementText(element);
          if (seen.has(id) && !check.allowDuplicates) report(check, '', `duplicate entries for key ${id}`);
          seen.add(id);
        }
        validateChild(check, elementText(element), i, value[i], type.elementType);
      }
      return;
    }
    case 'map': {
      const type = atom.map!;
      if (value === null || value === undefined) return;
      if (!isMap(value)) return report(check, '', `expected map, got ${JSON.stringify(value)}`);
      for (const key of Object.keys(value)) {
        const childType = fieldType(type, key);
        if (childType === undefined) {
          if (check.undeclared === undefined) return report(check, `.${key}`, 'field not declared in schema');
          check.undeclared.push([...check.location, key]);
          continue;
        }
        validateChild(check, `.${key}`, key, value[key], childType);
      }
    }
  }
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
  const set = new FieldSetBuilder();
  collect(typed, value, typed.root, [], set);
  return set.set;
}

function collect(
  typed: TypedSchema,
  value: Json | undefined,
  ref: TypeRef | undefined,
  path: PathElement[],
  set: FieldSetBuilder,
): void {
  const atom = ref === undefined ? undefined : typed.schema.resolve(ref);
  if (atom === undefined) return;
  const members = deducedMembers(atom, value);
  if (members === 0) return;
  switch (shapeOf(members)) {
    case 'scalar':
      return set.insert(path);
    case 'list': {
      const type = atom.list!;
      if (type.relationship === 'atomic') return set.insert(path);
      const list = asList(value);
      if (list === undefined) return;
      const elements = list.map((item) => listItemElementOrNone(typed.schema, type, item));
      // Duplicates are told apart by their printed form, as SMD's value sets are; a single item has none.
      const texts =
        elements.length > 1 ? elements.map((e) => (e === undefined ? undefined : elementText(e))) : undefined;
      const counts = new Map<string, number>();
      if (texts !== undefined)
        for (const text of texts) if (text !== undefined) counts.set(text, (counts.get(text) ?? 0) + 1);
      const duplicatesDone = new Set<string>();
      for (let i = 0; i < elements.length; i++) {
        const element = elements[i];
        if (element === undefined) continue;
        const text = texts?.[i];
        path.push(element);
        if (text !== undefined && counts.get(text)! > 1) {
          if (!duplicatesDone.has(text)) set.insert(path);
          duplicatesDone.add(text);
        } else {
          collect(typed, list[i], type.elementType, path, set);
          set.insert(path);
        }
        path.pop();
      }
      return;
    }
    case 'map': {
      const type = atom.map!;
      if (type.relationship === 'atomic') return set.insert(path);
      const map = asMap(value);
      if (map === undefined) return;
      for (const key of Object.keys(map)) {
        const child = map[key]!;
        path.push(fieldElement(key));
        collect(typed, child, fieldType(type, key), path, set);
        if (child === null || (isMap(child) && isEmptyMap(child)) || !type.fields.has(key)) set.insert(path);
        path.pop();
      }
    }
  }
}
