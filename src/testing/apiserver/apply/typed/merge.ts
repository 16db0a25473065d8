/**
 * `TypedValue.Merge`: the applied configuration laid over the live object, as structured-merge-diff merges it
 * (granular maps by key, associative lists by item key in a stable order, atomic values replaced whole).
 * @module
 */
import { cloneJson } from '../../object.js';
import { serializePathElement, type PathElement } from '../path.js';
import type { ListType, MapType, TypeRef, TypedSchema } from '../schema.js';
import type { Json, JsonMap } from '../value.js';
import { asList, asMap, deduceAtom, elementText, fieldType, handleAtom, listItemElement, resolveAtom, TypedValueError, type TypedError } from './common.js';

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

function merge(typed: TypedSchema, lhs: Json | undefined, rhs: Json | undefined, ref: TypeRef | undefined): Json | undefined {
  if (ref === undefined) return keepRight(lhs, rhs);
  const base = resolveAtom(typed.schema, ref);
  const atom = rhs === undefined ? deduceAtom(base, lhs) : deduceAtom(base, rhs);
  return handleAtom<Json | undefined>(atom, {
    scalar: () => keepRight(lhs, rhs),
    list: (type) => mergeList(typed, type, lhs, rhs),
    map: (type) => mergeMap(typed, type, lhs, rhs),
  });
}

function mergeMap(typed: TypedSchema, type: MapType, lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  const l = asMap(lhs);
  const r = asMap(rhs);
  const empty = (l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0);
  if (type.relationship === 'atomic' || empty) return keepRight(lhs, rhs);
  const out: JsonMap = {};
  const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
  for (const key of keys) {
    const left = l !== undefined && Object.hasOwn(l, key) ? l[key] : undefined;
    const right = r !== undefined && Object.hasOwn(r, key) ? r[key] : undefined;
    const merged = merge(typed, left, right, fieldType(type, key));
    if (merged !== undefined) out[key] = merged;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface Indexed {
  readonly elements: PathElement[];
  readonly byId: Map<string, Json | undefined>;
}

function index(typed: TypedSchema, type: ListType, list: readonly Json[], allowDuplicates: boolean, errors: TypedError[]): Indexed {
  const elements: PathElement[] = [];
  const byId = new Map<string, Json | undefined>();
  list.forEach((item, i) => {
    let element: PathElement;
    try {
      element = listItemElement(typed.schema, type, item);
    } catch (error) {
      errors.push({ path: '', message: `element ${i}: ${(error as Error).message}` });
      return;
    }
    const id = serializePathElement(element);
    if (byId.has(id)) {
      if (!allowDuplicates) {
        errors.push({ path: '', message: `duplicate entries for key ${elementText(element)}` });
        return;
      }
      byId.set(id, null);
    } else byId.set(id, item);
    elements.push(element);
  });
  return { elements, byId };
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
  const id = (e: PathElement) => serializePathElement(e);
  const out: Json[] = [];
  const push = (value: Json | undefined) => {
    if (value !== undefined) out.push(value);
  };
  // The item order of SMD's visitListItems: live order, with each shared item placed where the applied
  // configuration puts it relative to the other shared items.
  const shared = right.elements.filter((e) => left.byId.has(id(e)));
  let nextShared = shared.shift();
  const mergedRight = new Set<string>();
  let li = 0;
  let ri = 0;
  while (li < left.elements.length || ri < right.elements.length) {
    if (li < left.elements.length && ri < right.elements.length) {
      const le = left.elements[li]!;
      if (id(le) === id(right.elements[ri]!)) {
        mergedRight.add(id(le));
        push(merge(typed, left.byId.get(id(le)), right.byId.get(id(le)), type.elementType));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (right.byId.has(id(le)) && nextShared !== undefined && id(nextShared) !== id(le)) {
        li++;
        continue;
      }
    }
    if (li < left.elements.length) {
      const le = left.elements[li]!;
      if (!right.byId.has(id(le))) {
        push(merge(typed, l![li], undefined, type.elementType));
        li++;
        continue;
      } else if (mergedRight.has(id(le))) {
        li++;
      }
    }
    if (ri < right.elements.length) {
      const re = right.elements[ri]!;
      mergedRight.add(id(re));
      push(merge(typed, left.byId.get(id(re)), right.byId.get(id(re)), type.elementType));
      ri++;
      if (nextShared !== undefined && id(nextShared) === id(re)) nextShared = shared.shift();
    }
  }
  return out.length > 0 ? out : undefined;
}
