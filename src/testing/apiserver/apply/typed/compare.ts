/**
 * `TypedValue.Compare`: which field paths an update added, removed and modified.
 * @module
 */
import { FieldSet } from '../fieldset.js';
import { fieldElement, serializePathElement, type Path, type PathElement } from '../path.js';
import type { ListType, MapType, TypeRef, TypedSchema } from '../schema.js';
import { equalValues, type Json } from '../value.js';
import { asList, asMap, deduceAtom, handleAtom, fieldType, listItemElement, resolveAtom, sameAtom } from './common.js';

/** What changed between two versions of an object, as three sets of paths. */
export interface Comparison {
  readonly removed: FieldSet;
  readonly modified: FieldSet;
  readonly added: FieldSet;
}

/**
 * Compares `lhs` (before) with `rhs` (after).
 *
 * # Guarantees
 * - Leaves (scalars, atomic lists and maps, empty lists and maps) are added, removed or modified; a granular map
 *   or associative list that appears or disappears is itself added or removed, besides its leaves.
 * - Items that cannot be keyed are skipped (the objects were validated before).
 */
export function compareValues(typed: TypedSchema, lhs: Json | undefined, rhs: Json | undefined): Comparison {
  const result = { removed: new FieldSet(), modified: new FieldSet(), added: new FieldSet() };
  compare(typed, lhs, rhs, typed.root, [], result);
  return result;
}

function compare(typed: TypedSchema, lhs: Json | undefined, rhs: Json | undefined, ref: TypeRef | undefined, path: Path, out: Comparison): void {
  if (ref === undefined) return;
  const base = resolveAtom(typed.schema, ref);
  const al = deduceAtom(base, lhs);
  const ar = deduceAtom(base, rhs);
  const state = { inLeaf: false };
  const walk = (atom: typeof base, leafState: { inLeaf: boolean }) => handleAtom<void>(atom, {
    scalar: () => leaf(lhs, rhs, path, out, leafState),
    list: (type) => compareList(typed, type, lhs, rhs, path, out, leafState),
    map: (type) => compareMap(typed, type, lhs, rhs, path, out, leafState),
  });
  if (rhs === undefined) walk(al, state);
  else if (lhs === undefined || sameAtom(al, ar)) walk(ar, state);
  else {
    walk(al, { inLeaf: false });
    walk(ar, state);
  }
  if (!state.inLeaf) {
    if (lhs === undefined) out.added.insert(path);
    else if (rhs === undefined) out.removed.insert(path);
  }
}

function leaf(lhs: Json | undefined, rhs: Json | undefined, path: Path, out: Comparison, state: { inLeaf: boolean }): void {
  if (state.inLeaf) return;
  state.inLeaf = true;
  if (lhs === undefined) out.added.insert(path);
  else if (rhs === undefined) out.removed.insert(path);
  else if (!equalValues(lhs, rhs)) out.modified.insert(path);
}

function compareMap(typed: TypedSchema, type: MapType, lhs: Json | undefined, rhs: Json | undefined, path: Path, out: Comparison, state: { inLeaf: boolean }): void {
  const l = asMap(lhs);
  const r = asMap(rhs);
  const empty = (l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0);
  if (type.relationship === 'atomic' || empty) return leaf(lhs, rhs, path, out, state);
  if (l === undefined && r === undefined) return;
  const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
  for (const key of keys) {
    const left = l !== undefined && Object.hasOwn(l, key) ? l[key] : undefined;
    const right = r !== undefined && Object.hasOwn(r, key) ? r[key] : undefined;
    compare(typed, left, right, fieldType(type, key), [...path, fieldElement(key)], out);
  }
}

function group(typed: TypedSchema, type: ListType, list: readonly Json[] | undefined, order: PathElement[], seen: Set<string>): Map<string, Json[]> {
  const groups = new Map<string, Json[]>();
  for (const item of list ?? []) {
    let element: PathElement;
    try {
      element = listItemElement(typed.schema, type, item);
    } catch {
      continue;
    }
    const id = serializePathElement(element);
    const items = groups.get(id);
    if (items !== undefined) items.push(item);
    else {
      groups.set(id, [item]);
      if (!seen.has(id)) {
        seen.add(id);
        order.push(element);
      }
    }
  }
  return groups;
}

function compareList(typed: TypedSchema, type: ListType, lhs: Json | undefined, rhs: Json | undefined, path: Path, out: Comparison, state: { inLeaf: boolean }): void {
  const l = asList(lhs);
  const r = asList(rhs);
  const empty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
  if (type.relationship === 'atomic' || empty) return leaf(lhs, rhs, path, out, state);
  if (l === undefined && r === undefined) return;
  const order: PathElement[] = [];
  const seen = new Set<string>();
  const left = group(typed, type, l, order, seen);
  const right = group(typed, type, r, order, seen);
  for (const element of order) {
    const id = serializePathElement(element);
    const ls = left.get(id) ?? [];
    const rs = right.get(id) ?? [];
    const itemPath = [...path, element];
    if (ls.length <= 1 && rs.length <= 1) compare(typed, ls[0], rs[0], type.elementType, itemPath, out);
    else if (ls.length >= 2 && rs.length >= 2) {
      if (ls.length !== rs.length || !ls.every((v, i) => equalValues(v, rs[i]))) out.modified.insert(itemPath);
    } else if (ls.length >= 2) {
      if (rs.length !== 0) compare(typed, undefined, rs[0], type.elementType, itemPath, out);
      out.removed.insert(itemPath);
    } else {
      if (ls.length !== 0) compare(typed, ls[0], undefined, type.elementType, itemPath, out);
      out.added.insert(itemPath);
    }
  }
}
