/**
 * `TypedValue.Compare`: which field paths an update added, removed and modified.
 * @module
 */
import { FieldSetBuilder } from '../builder.js';
import type { FieldSet } from '../fieldset.js';
import { fieldElement, type PathElement } from '../path.js';
import type { Atom, ListType, MapType, TypeRef, TypedSchema } from '../schema.js';
import { equalValues, type Json } from '../value.js';
import { asList, asMap, deducedMembers, fieldType, isEmptyMap, listItemId, resolveAtom, shapeOf } from './common.js';

/** What changed between two versions of an object, as three sets of paths. */
export interface Comparison {
  readonly removed: FieldSet;
  readonly modified: FieldSet;
  readonly added: FieldSet;
}

/** One comparison in progress: the schema, the path of the node being compared (pushed and popped), the result. */
interface Walk {
  readonly typed: TypedSchema;
  readonly path: PathElement[];
  readonly removed: FieldSetBuilder;
  readonly modified: FieldSetBuilder;
  readonly added: FieldSetBuilder;
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
  const walk: Walk = {
    typed,
    path: [],
    removed: new FieldSetBuilder(),
    modified: new FieldSetBuilder(),
    added: new FieldSetBuilder(),
  };
  compare(walk, lhs, rhs, typed.root);
  return { removed: walk.removed.set, modified: walk.modified.set, added: walk.added.set };
}

function compare(walk: Walk, lhs: Json | undefined, rhs: Json | undefined, ref: TypeRef | undefined): void {
  if (ref === undefined) return;
  if (lhs === undefined) return compareAdded(walk, rhs, ref);
  const atom = resolveAtom(walk.typed.schema, ref);
  const left = deducedMembers(atom, lhs);
  const right = deducedMembers(atom, rhs);
  let inLeaf: boolean;
  if (rhs === undefined) inLeaf = compareAs(walk, atom, left, lhs, rhs);
  else if (left === right) inLeaf = compareAs(walk, atom, right, lhs, rhs);
  else {
    compareAs(walk, atom, left, lhs, rhs);
    inLeaf = compareAs(walk, atom, right, lhs, rhs);
  }
  if (!inLeaf && rhs === undefined) walk.removed.insert(walk.path);
}

/** Compares under one deduced shape of `atom`; true when the node was a leaf (and recorded as one). */
function compareAs(walk: Walk, atom: Atom, members: number, lhs: Json | undefined, rhs: Json | undefined): boolean {
  switch (shapeOf(members)) {
    case 'map':
      return compareMap(walk, atom.map!, lhs, rhs);
    case 'scalar':
      return leaf(walk, lhs, rhs);
    case 'list':
      return compareList(walk, atom.list!, lhs, rhs);
  }
}

/**
 * `compare(walk, undefined, rhs, ref)`, the walk of a subtree that is all new (every create is one): each node
 * is added, as a leaf or after its children, in the same cases as the general walk. Nodes are added straight into
 * the set's tree below the node of the subtree's parent, not by path from the root.
 */
function compareAdded(walk: Walk, rhs: Json | undefined, ref: TypeRef): void {
  const path = walk.path;
  if (path.length === 0) addNode(walk, walk.added.set, undefined, rhs, ref);
  else addNode(walk, walk.added.nodeAt(path, path.length - 1), path[path.length - 1]!, rhs, ref);
}

/**
 * Adds `element` below `parent` as a member, with everything `value` (of type `ref`) holds below it; without an
 * element, adds what `value` holds to `parent` itself (the root).
 */
function addNode(
  walk: Walk,
  parent: FieldSet,
  element: PathElement | undefined,
  value: Json | undefined,
  ref: TypeRef,
): void {
  const atom = resolveAtom(walk.typed.schema, ref);
  const shape = shapeOf(deducedMembers(atom, value));
  // The element's node is created on its first child only: a node without children must not appear in the set.
  let node = element === undefined ? parent : undefined;
  if (shape === 'map' && value !== undefined) {
    const type = atom.map!;
    const map = asMap(value);
    if (type.relationship !== 'atomic' && map !== undefined) {
      for (const key of Object.keys(map)) {
        const childType = fieldType(type, key);
        if (childType !== undefined)
          addNode(walk, (node ??= parent.descend(element!)), fieldElement(key), map[key], childType);
      }
    }
  } else if (shape === 'list' && value !== undefined) {
    const type = atom.list!;
    const list = asList(value);
    if (type.relationship !== 'atomic' && list !== undefined && list.length === 1) {
      // One item cannot repeat a key: no grouping needed.
      const keyed = listItemId(walk.typed.schema, type, list[0]!);
      if (keyed !== undefined)
        addNode(walk, (node ??= parent.descend(element!)), keyed.element, list[0], type.elementType);
    } else if (type.relationship !== 'atomic' && list !== undefined && list.length > 1) {
      const elements = new Map<string, PathElement>();
      for (const [id, items] of group(walk, type, list, elements)) {
        node ??= parent.descend(element!);
        // A key given twice is added as the item alone, as the general walk adds it.
        if (items.length === 1) addNode(walk, node, elements.get(id)!, items[0], type.elementType);
        else node.insertMember(elements.get(id)!);
      }
    }
  }
  if (element !== undefined) parent.insertMember(element);
}

function leaf(walk: Walk, lhs: Json | undefined, rhs: Json | undefined): true {
  if (lhs === undefined) walk.added.insert(walk.path);
  else if (rhs === undefined) walk.removed.insert(walk.path);
  else if (!equalValues(lhs, rhs)) walk.modified.insert(walk.path);
  return true;
}

function compareChild(
  walk: Walk,
  element: PathElement,
  lhs: Json | undefined,
  rhs: Json | undefined,
  ref: TypeRef | undefined,
): void {
  walk.path.push(element);
  compare(walk, lhs, rhs, ref);
  walk.path.pop();
}

function compareMap(walk: Walk, type: MapType, lhs: Json | undefined, rhs: Json | undefined): boolean {
  const l = asMap(lhs);
  const r = asMap(rhs);
  const empty = (l === undefined || isEmptyMap(l)) && (r === undefined || isEmptyMap(r));
  if (type.relationship === 'atomic' || empty) return leaf(walk, lhs, rhs);
  // Keys of the left side first, then those only on the right (the order SMD walks them in).
  if (l !== undefined) {
    for (const key of Object.keys(l)) {
      const right = r !== undefined && Object.hasOwn(r, key) ? r[key] : undefined;
      compareChild(walk, fieldElement(key), l[key], right, fieldType(type, key));
    }
  }
  if (r !== undefined) {
    for (const key of Object.keys(r)) {
      if (l !== undefined && Object.hasOwn(l, key)) continue;
      compareChild(walk, fieldElement(key), undefined, r[key], fieldType(type, key));
    }
  }
  return false;
}

/** The items of a list grouped by key, and the keys in first-seen order (`order`/`elements` shared by both sides). */
function group(
  walk: Walk,
  type: ListType,
  list: readonly Json[] | undefined,
  elements: Map<string, PathElement>,
): Map<string, Json[]> {
  const groups = new Map<string, Json[]>();
  if (list === undefined) return groups;
  for (const item of list) {
    const keyed = listItemId(walk.typed.schema, type, item);
    if (keyed === undefined) continue;
    const items = groups.get(keyed.id);
    if (items !== undefined) items.push(item);
    else {
      groups.set(keyed.id, [item]);
      if (!elements.has(keyed.id)) elements.set(keyed.id, keyed.element);
    }
  }
  return groups;
}

const none: readonly Json[] = [];

function compareList(walk: Walk, type: ListType, lhs: Json | undefined, rhs: Json | undefined): boolean {
  const l = asList(lhs);
  const r = asList(rhs);
  const empty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
  if (type.relationship === 'atomic' || empty) return leaf(walk, lhs, rhs);
  // Equal lists change nothing below them (every item pairs with its equal); checking that is much cheaper than
  // keying every item of both sides, and most writes leave most lists alone.
  if (l !== undefined && r !== undefined && equalValues(l, r)) return false;
  const elements = new Map<string, PathElement>();
  const left = group(walk, type, l, elements);
  const right = group(walk, type, r, elements);
  for (const [id, element] of elements) {
    const ls = left.get(id) ?? none;
    const rs = right.get(id) ?? none;
    if (ls.length <= 1 && rs.length <= 1) {
      compareChild(walk, element, ls[0], rs[0], type.elementType);
      continue;
    }
    walk.path.push(element);
    if (ls.length >= 2 && rs.length >= 2) {
      if (ls.length !== rs.length || !ls.every((v, i) => equalValues(v, rs[i]))) walk.modified.insert(walk.path);
    } else if (ls.length >= 2) {
      if (rs.length !== 0) compare(walk, undefined, rs[0], type.elementType);
      walk.removed.insert(walk.path);
    } else {
      if (ls.length !== 0) compare(walk, ls[0], undefined, type.elementType);
      walk.added.insert(walk.path);
    }
    walk.path.pop();
  }
  return false;
}
