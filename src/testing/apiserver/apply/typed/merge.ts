/**
 * `TypedValue.Merge`: the applied configuration laid over the live object, as structured-merge-diff merges it
 * (granular maps by key, associative lists by item key in a stable order, atomic values replaced whole).
 * @module
 */
import { cloneJson } from '../../machinery/index.js';
import { serializePathElement, type PathElement } from '../path.js';
import type { ListType, MapType, TypeRef, TypedSchema } from '../schema.js';
import type { Json, JsonMap } from '../value.js';
import {
  asList,
  asMap,
  deducedMembers,
  elementText,
  fieldType,
  isEmptyMap,
  listItemElement,
  resolveAtom,
  shapeOf,
  TypedValueError,
  type TypedError,
} from './common.js';

function copy<T extends Json | undefined>(value: T): T {
  return cloneJson(value);
}

/** The leaf rule: the right side wins, else the left stays. */
function keepRight(lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  return rhs !== undefined ? copy(rhs) : copy(lhs);
}

/**
 * Merges `rhs` (the applied configuration) into `lhs` (the live object) under `typed`.
 *
 * # Guarantees
 * - Never changes its inputs; the result shares nothing with them.
 * - List items keep the live order, with applied items placed as SMD places them; a list item that cannot be
 *   keyed is a {@link TypedValueError}.
 */
export function mergeValues(typed: TypedSchema, lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  return merge(typed, lhs, rhs, typed.root);
}

function merge(
  typed: TypedSchema,
  lhs: Json | undefined,
  rhs: Json | undefined,
  ref: TypeRef | undefined,
): Json | undefined {
  if (ref === undefined) return keepRight(lhs, rhs);
  const atom = resolveAtom(typed.schema, ref);
  switch (shapeOf(deducedMembers(atom, rhs === undefined ? lhs : rhs))) {
    case 'map':
      return mergeMap(typed, atom.map!, lhs, rhs);
    case 'scalar':
      return keepRight(lhs, rhs);
    case 'list':
      return mergeList(typed, atom.list!, lhs, rhs);
  }
}

function mergeMap(typed: TypedSchema, type: MapType, lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  const l = asMap(lhs);
  const r = asMap(rhs);
  const empty = (l === undefined || isEmptyMap(l)) && (r === undefined || isEmptyMap(r));
  if (type.relationship === 'atomic' || empty) return keepRight(lhs, rhs);
  const out: JsonMap = {};
  // Keys of the live object first, then those only in the configuration.
  if (l !== undefined) {
    for (const key of Object.keys(l)) {
      const merged = merge(
        typed,
        l[key],
        r !== undefined && Object.hasOwn(r, key) ? r[key] : undefined,
        fieldType(type, key),
      );
      if (merged === undefined) continue;
      out[key] = merged;
    }
  }
  if (r !== undefined) {
    for (const key of Object.keys(r)) {
      if (l !== undefined && Object.hasOwn(l, key)) continue;
      const merged = merge(typed, undefined, r[key], fieldType(type, key));
      if (merged === undefined) continue;
      out[key] = merged;
    }
  }
  return isEmptyMap(out) ? undefined : out;
}

function pushDefined(out: Json[], value: Json | undefined): void {
  if (value !== undefined) out.push(value);
}

/** A list's items by FieldsV1 key (`null` for a duplicated key), and the keys in list order. */
interface Indexed {
  readonly ids: string[];
  readonly byId: Map<string, Json | undefined>;
}

function index(
  typed: TypedSchema,
  type: ListType,
  list: readonly Json[],
  allowDuplicates: boolean,
  errors: TypedError[],
): Indexed {
  const ids: string[] = [];
  const byId = new Map<string, Json | undefined>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    let element: PathElement;
    try {
      element = listItemElement(typed.schema, type, item);
    } catch (error) {
      errors.push({ path: '', message: `element ${i}: ${(error as Error).message}` });
      continue;
    }
    const id = serializePathElement(element);
    if (byId.has(id)) {
      if (!allowDuplicates) {
        errors.push({ path: '', message: `duplicate entries for key ${elementText(element)}` });
        continue;
      }
      byId.set(id, null);
    } else byId.set(id, item);
    ids.push(id);
  }
  return { ids, byId };
}

function mergeList(typed: TypedSchema, type: ListType, lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  const l = asList(lhs);
  const r = asList(rhs);
  const empty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
  if (type.relationship === 'atomic' || empty) return keepRight(lhs, rhs);
  const errors: TypedError[] = [];
  const right = index(typed, type, r ?? [], false, errors);
  const left = index(typed, type, l ?? [], true, errors);
  if (errors.length > 0) throw new TypedValueError(errors);
  const out: Json[] = [];
  // The item order of SMD's visitListItems: live order, with each shared item placed where the applied
  // configuration puts it relative to the other shared items.
  const shared = right.ids.filter((id) => left.byId.has(id));
  let sharedAt = 0;
  let nextShared = shared[sharedAt++];
  const mergedRight = new Set<string>();
  let li = 0;
  let ri = 0;
  while (li < left.ids.length || ri < right.ids.length) {
    if (li < left.ids.length && ri < right.ids.length) {
      const le = left.ids[li]!;
      if (le === right.ids[ri]) {
        mergedRight.add(le);
        pushDefined(out, merge(typed, left.byId.get(le), right.byId.get(le), type.elementType));
        li++;
        ri++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (right.byId.has(le) && nextShared !== undefined && nextShared !== le) {
        li++;
        continue;
      }
    }
    if (li < left.ids.length) {
      const le = left.ids[li]!;
      if (!right.byId.has(le)) {
        pushDefined(out, merge(typed, l![li], undefined, type.elementType));
        li++;
        continue;
      } else if (mergedRight.has(le)) {
        li++;
      }
    }
    if (ri < right.ids.length) {
      const re = right.ids[ri]!;
      mergedRight.add(re);
      pushDefined(out, merge(typed, left.byId.get(re), right.byId.get(re), type.elementType));
      ri++;
      if (nextShared !== undefined && nextShared === re) nextShared = shared[sharedAt++];
    }
  }
  return out.length > 0 ? out : undefined;
}
