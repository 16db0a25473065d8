/**
 * structured-merge-diff's `merge.Updater`: ownership bookkeeping for updates and applies, conflict detection,
 * and pruning of fields an applier stopped applying.
 * @module
 */
import { FieldSet } from './fieldset.js';
import { comparePathElements, type Path, type PathElement } from './path.js';
import type { TypeRef, TypedSchema } from './schema.js';
import { compareValues, type Comparison } from './typed/compare.js';
import { toFieldSet } from './typed/fieldset.js';
import { mergeValues } from './typed/merge.js';
import { removeItems } from './typed/remove.js';
import { equalValues, type Json } from './value.js';

/** The fields one manager owns, at the API version it wrote them, and whether it applied them. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Manager identifier (the JSON SMD keys managers by) → what it owns. */
export type ManagedFields = Map<string, VersionedSet>;

/** One conflicting field: who owns it and where it is. */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** An apply refused because other managers own fields it would change. */
export class ConflictsError extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
    this.name = 'ConflictsError';
  }
}

/**
 * Typing of an object at the API versions managers used. `at(version)` is undefined for a version the server no
 * longer serves (such managers are dropped, as SMD drops them on a missing-version error).
 */
export interface VersionedTypes {
  at(version: string): TypedSchema | undefined;
  /** Paths the strategy resets at a version (status on the main resource, spec on /status...). */
  resetFields(version: string): FieldSet | undefined;
  /** The object as seen at another API version (identity when versions share one shape). */
  convert(value: Json | undefined, version: string): Json | undefined;
}

function filtered(set: FieldSet, reset: FieldSet | undefined): FieldSet {
  return reset === undefined ? set : set.recursiveDifference(reset);
}

function filterComparison(c: Comparison, reset: FieldSet | undefined): Comparison {
  return reset === undefined
    ? c
    : { removed: filtered(c.removed, reset), modified: filtered(c.modified, reset), added: filtered(c.added, reset) };
}

/**
 * `Updater.update`: takes ownership away from every other manager for the fields `next` changes (conflicts
 * unless `force`) and drops removed fields from everyone. Returns the comparison at `version`.
 */
function reassign(
  types: VersionedTypes,
  live: Json | undefined,
  next: Json | undefined,
  version: string,
  managers: ManagedFields,
  workflow: string,
  force: boolean,
): Comparison {
  const typed = types.at(version)!;
  const comparison = filterComparison(compareValues(typed, live, next), types.resetFields(version));
  // Per API version: what changed there, and the changed fields nobody else may keep (modified or added).
  const byVersion = new Map<string, { readonly comparison: Comparison; readonly changed: FieldSet }>([
    [version, { comparison, changed: comparison.modified.union(comparison.added) }],
  ]);
  const conflicts = new Map<string, FieldSet>();
  const removed = new Map<string, FieldSet>();
  for (const [manager, owned] of managers) {
    if (manager === workflow) continue;
    let at = byVersion.get(owned.apiVersion);
    if (at === undefined) {
      const other = types.at(owned.apiVersion);
      if (other === undefined) {
        managers.delete(manager);
        continue;
      }
      const c = filterComparison(
        compareValues(other, types.convert(live, owned.apiVersion), types.convert(next, owned.apiVersion)),
        types.resetFields(owned.apiVersion),
      );
      at = { comparison: c, changed: c.modified.union(c.added) };
      byVersion.set(owned.apiVersion, at);
    }
    const conflict = owned.set.intersection(at.changed);
    if (!conflict.empty()) conflicts.set(manager, conflict);
    if (!at.comparison.removed.empty()) removed.set(manager, at.comparison.removed);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const manager of [...conflicts.keys()].sort())
      for (const path of conflicts.get(manager)!.paths()) list.push({ manager, path });
    throw new ConflictsError(list);
  }
  for (const [manager, set] of conflicts) {
    const owned = managers.get(manager)!;
    managers.set(manager, { ...owned, set: owned.set.difference(set) });
  }
  for (const [manager, set] of removed) {
    const owned = managers.get(manager)!;
    managers.set(manager, { ...owned, set: owned.set.difference(set) });
  }
  for (const [manager, owned] of managers) if (owned.set.empty()) managers.delete(manager);
  return comparison;
}

/**
 * `Updater.Update`: records a non-apply write of `next` over `live` by `manager`.
 *
 * # Guarantees
 * - The writer gains every added and modified field and loses removed ones; others lose what it changed or
 *   removed (an update never conflicts). Reset fields are never owned. `managers` is updated in place.
 */
export function recordUpdate(
  types: VersionedTypes,
  live: Json | undefined,
  next: Json | undefined,
  version: string,
  managers: ManagedFields,
  manager: string,
): void {
  const comparison = reassign(types, live, next, version, managers, manager, true);
  const previous = managers.get(manager)?.set ?? new FieldSet();
  const set = filtered(
    previous.difference(comparison.removed).union(comparison.modified).union(comparison.added),
    types.resetFields(version),
  );
  if (set.empty()) managers.delete(manager);
  else managers.set(manager, { set, apiVersion: version, applied: false });
}

/**
 * `Updater.Apply`: merges `config` into `live` for `manager`.
 *
 * # Guarantees
 * - The applier owns exactly the fields of `config` (less reset fields); fields it applied before and no longer
 *   applies are removed unless another manager owns them; fields changed under other owners are conflicts
 *   ({@link ConflictsError}) unless `force`, which moves them to the applier.
 * - Returns undefined as the object when nothing in it changes (managers may still change).
 */
export function applyConfig(
  types: VersionedTypes,
  live: Json,
  config: Json,
  version: string,
  managers: ManagedFields,
  manager: string,
  force: boolean,
): Json | undefined {
  const typed = types.at(version)!;
  let merged = mergeValues(typed, live, config);
  const last = managers.get(manager);
  managers.set(manager, {
    set: filtered(toFieldSet(typed, config), types.resetFields(version)),
    apiVersion: version,
    applied: true,
  });
  if (last !== undefined && !last.set.empty()) merged = prune(types, merged, managers, last, version);
  reassign(types, live, merged, version, managers, manager, force);
  return equalValues(live, merged) ? undefined : merged;
}

/** Removes what `last` owned and nobody claims any more (SMD's prune, addBackOwnedItems and addBackDanglingItems). */
function prune(
  types: VersionedTypes,
  merged: Json | undefined,
  managers: ManagedFields,
  last: VersionedSet,
  applierVersion: string,
): Json | undefined {
  const typed = types.at(last.apiVersion);
  if (typed === undefined) return merged;
  // The same sets are asked for more than once (the merged object's fields, the last applied set): each is
  // computed once per prune.
  const fieldsMemo = new Map<TypedSchema, Map<Json | undefined, FieldSet>>();
  const fields = (t: TypedSchema, value: Json | undefined): FieldSet =>
    memo(fieldsMemo, t, value, () => namedFieldsAsMembers(t, toFieldSet(t, value), t.root));
  const namedMemo = new Map<TypedSchema, Map<FieldSet, FieldSet>>();
  const named = (set: FieldSet, t: TypedSchema): FieldSet =>
    memo(namedMemo, t, set, () => namedFieldsAsMembers(t, set, t.root));
  const at = (value: Json | undefined, version: string) => types.convert(value, version);
  merged = at(merged, last.apiVersion);
  let pruned = removeItems(typed, merged, named(last.set, typed));
  const owned = new Map<string, FieldSet>();
  for (const m of managers.values()) owned.set(m.apiVersion, (owned.get(m.apiVersion) ?? new FieldSet()).union(m.set));
  const versions = [...owned.keys()].sort((a, b) => Number(b === last.apiVersion) - Number(a === last.apiVersion));
  for (const version of versions) {
    const t = types.at(version);
    if (t === undefined) continue;
    const mergedHere = at(merged, version);
    const keep = fields(t, at(pruned, version)).union(named(owned.get(version)!, t));
    pruned = removeItems(t, mergedHere, fields(t, mergedHere).difference(keep));
  }
  pruned = at(pruned, last.apiVersion);
  const dangling = fields(typed, merged).difference(fields(typed, pruned)).intersection(named(last.set, typed));
  return at(removeItems(typed, merged, dangling), applierVersion);
}

function memo<K, V>(cache: Map<TypedSchema, Map<K, V>>, typed: TypedSchema, key: K, compute: () => V): V {
  let byKey = cache.get(typed);
  if (byKey === undefined) {
    byKey = new Map();
    cache.set(typed, byKey);
  }
  let value = byKey.get(key);
  if (value === undefined) {
    value = compute();
    byKey.set(key, value);
  }
  return value;
}

/**
 * `EnsureNamedFieldsAreMembers`: struct fields that have children also count as members.
 *
 * # Guarantees
 * - Returns `set` itself, or parts of it, where nothing is added (sets are immutable).
 */
export function namedFieldsAsMembers(typed: TypedSchema, set: FieldSet, ref: TypeRef | undefined): FieldSet {
  const atom = ref === undefined ? undefined : typed.schema.resolve(ref);
  let added: PathElement[] | undefined;
  let children: { readonly element: PathElement; readonly set: FieldSet }[] | undefined;
  for (let i = 0; i < set.children.length; i++) {
    const child = set.children[i]!;
    let childRef: TypeRef | undefined;
    if (child.element.kind === 'field' && atom?.map !== undefined) {
      const declared = atom.map.fields.get(child.element.name);
      if (declared !== undefined && !set.hasMember(child.element)) (added ??= []).push(child.element);
      childRef = declared?.type ?? atom.map.elementType;
    } else if (child.element.kind === 'key' && atom?.list !== undefined) {
      childRef = atom.list.elementType;
    }
    const below = namedFieldsAsMembers(typed, child.set, childRef);
    if (below !== child.set && children === undefined) children = set.children.slice(0, i);
    children?.push(below === child.set ? child : { element: child.element, set: below });
  }
  if (added === undefined && children === undefined) return set;
  const members = added === undefined ? set.members : [...set.members, ...added].sort(comparePathElements);
  return new FieldSet(members, children ?? set.children);
}
