/**
 * `FieldSet`: structured-merge-diff's `fieldpath.Set`, a trie of path elements whose nodes are either members
 * (the path itself is in the set) or parents of children, and its FieldsV1 JSON form.
 * @module
 */
import {
  comparePathElements,
  deserializePathElement,
  equalPathElements,
  serializePathElement,
  type Path,
  type PathElement,
} from './path.js';
import { parseJson } from '../../../transport/index.js';

/** A child subtree under one path element. */
interface Child {
  readonly element: PathElement;
  readonly set: FieldSet;
}

/** Finds `element` in a sorted array: its index, or `-(insertion point) - 1`. */
function search<T>(items: readonly T[], element: PathElement, key: (item: T) => PathElement): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePathElements(key(items[mid]!), element);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -lo - 1;
}

const self = (e: PathElement): PathElement => e;

/** Field names' FieldsV1 keys as JSON text: the same few hundred names are written again and again. */
const quotedFields = new Map<string, string>();

/** Other elements' FieldsV1 keys as JSON text: list items of one key share their element (see `listItemId`). */
const quotedElements = new WeakMap<PathElement, string>();

/** The element's FieldsV1 key as JSON text. */
function quotedKey(e: PathElement): string {
  if (e.kind !== 'field') {
    let text = quotedElements.get(e);
    if (text === undefined) {
      text = JSON.stringify(serializePathElement(e));
      quotedElements.set(e, text);
    }
    return text;
  }
  let text = quotedFields.get(e.name);
  if (text === undefined) {
    if (quotedFields.size >= 16384) quotedFields.clear();
    text = JSON.stringify(serializePathElement(e));
    quotedFields.set(e.name, text);
  }
  return text;
}
const childElement = (c: Child): PathElement => c.element;

/**
 * A set of field paths.
 *
 * # Guarantees
 * - Members and children are kept sorted by `comparePathElements`, so every operation is a linear merge and the
 *   FieldsV1 form is written in the same order as kube-apiserver writes it.
 * - Operations never change their inputs (after construction a set is treated as immutable); an operation whose
 *   result is this set, unchanged, returns this set itself, so callers can tell "no change" by identity.
 */
export class FieldSet {
  constructor(
    /** Elements whose path (prefix + element) is in the set. */
    readonly members: PathElement[] = [],
    /** Subtrees for paths that continue below an element. */
    readonly children: Child[] = [],
  ) {}

  /** A set of the given paths. */
  static of(paths: readonly Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds `path` in place (only while building a set). An empty path is ignored, as in SMD. */
  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]!);
    node.insertMember(path[path.length - 1]!);
  }

  /** Adds `element` as a member at this level (building only). */
  insertMember(element: PathElement): void {
    const members = this.members;
    // Elements often come in order (sorted FieldsV1, sorted keys): appending needs no search.
    if (members.length === 0 || comparePathElements(members[members.length - 1]!, element) < 0) {
      members.push(element);
      return;
    }
    const at = search(members, element, self);
    if (at < 0) members.splice(-at - 1, 0, element);
  }

  /** The child set under `element`, created when missing (building only). */
  descend(element: PathElement): FieldSet {
    const children = this.children;
    if (children.length === 0 || comparePathElements(children[children.length - 1]!.element, element) < 0) {
      const set = new FieldSet();
      children.push({ element, set });
      return set;
    }
    const at = search(children, element, childElement);
    if (at >= 0) return this.children[at]!.set;
    const set = new FieldSet();
    this.children.splice(-at - 1, 0, { element, set });
    return set;
  }

  /** True when `element` (at this level) is a member. */
  hasMember(element: PathElement): boolean {
    return search(this.members, element, self) >= 0;
  }

  /** The subtree under `element`, or an empty set. */
  withPrefix(element: PathElement): FieldSet {
    const at = search(this.children, element, childElement);
    return at >= 0 ? this.children[at]!.set : EMPTY;
  }

  /** True when `path` is a member. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const at = search(node.children, path[i]!, childElement);
      if (at < 0) return false;
      node = node.children[at]!.set;
    }
    return node.hasMember(path[path.length - 1]!);
  }

  /** True when the set holds no path. */
  empty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.empty());
  }

  /** Number of member paths. */
  size(): number {
    return this.children.reduce((n, c) => n + c.set.size(), this.members.length);
  }

  /** Every member path, in order (members of a node before its children, as SMD iterates). */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = this.members.map((m) => [...prefix, m]);
    for (const c of this.children) out.push(...c.set.paths([...prefix, c.element]));
    return out;
  }

  /** Paths in either set. */
  union(other: FieldSet): FieldSet {
    return this.with(
      mergeSorted(this.members, other.members, 'union'),
      mergeChildren(this.children, other.children, 'union'),
    );
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    return this.with(
      mergeSorted(this.members, other.members, 'intersection'),
      mergeChildren(this.children, other.children, 'intersection'),
    );
  }

  /** Paths of this set that are not in `other` (a member of `other` does not remove this set's children below it). */
  difference(other: FieldSet): FieldSet {
    return this.with(
      mergeSorted(this.members, other.members, 'difference'),
      mergeChildren(this.children, other.children, 'difference'),
    );
  }

  /** Like `difference`, but a member of `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const children: Child[] = [];
    let same = true;
    for (const c of this.children) {
      if (other.hasMember(c.element)) {
        same = false;
        continue;
      }
      const theirs = search(other.children, c.element, childElement);
      if (theirs < 0) children.push(c);
      else {
        const diff = c.set.recursiveDifference(other.children[theirs]!.set);
        const keep = !diff.empty();
        if (diff === c.set && keep) children.push(c);
        else {
          same = false;
          if (keep) children.push({ element: c.element, set: diff });
        }
      }
    }
    return this.with(mergeSorted(this.members, other.members, 'difference'), same ? this.children : children);
  }

  /** A set of `members` and `children`: this set itself when both are its own (nothing changed). */
  private with(members: PathElement[], children: Child[]): FieldSet {
    return members === this.members && children === this.children ? this : new FieldSet(members, children);
  }

  /** Structural equality. */
  equals(other: FieldSet): boolean {
    if (this === other) return true;
    const members = this.members;
    const children = this.children;
    if (members.length !== other.members.length || children.length !== other.children.length) return false;
    // Elements are values, and most are shared (field names, list keys): identity settles most comparisons.
    for (let i = 0; i < members.length; i++) {
      const a = members[i]!;
      const b = other.members[i]!;
      if (a !== b && !equalPathElements(a, b)) return false;
    }
    for (let i = 0; i < children.length; i++) {
      const a = children[i]!;
      const b = other.children[i]!;
      if (a.element !== b.element && !equalPathElements(a.element, b.element)) return false;
      if (!a.set.equals(b.set)) return false;
    }
    return true;
  }

  /** The FieldsV1 JSON object (`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`). */
  toFieldsV1(): Record<string, unknown> {
    return parseJson(this.toFieldsV1Text()) as Record<string, unknown>;
  }

  /** `JSON.stringify(this.toFieldsV1())`, written directly. */
  toFieldsV1Text(): string {
    return this.emitText(false);
  }

  private emitText(includeSelf: boolean): string {
    let out = includeSelf && (this.members.length > 0 || this.children.length > 0) ? '{".":{}' : '{';
    let mi = 0;
    let ci = 0;
    while (mi < this.members.length || ci < this.children.length) {
      const m = this.members[mi];
      const c = this.children[ci];
      const order = m === undefined ? 1 : c === undefined ? -1 : comparePathElements(m, c.element);
      if (out.length > 1) out += ',';
      if (order < 0) {
        out += `${quotedKey(m!)}:{}`;
        mi++;
      } else {
        out += `${quotedKey(c!.element)}:${c!.set.emitText(order === 0)}`;
        if (order === 0) mi++;
        ci++;
      }
    }
    return `${out}}`;
  }

  /**
   * Reads a FieldsV1 JSON object.
   *
   * # Guarantees
   * - A key with `{}` (or only `"."`) is a member; keys with unknown element types are skipped, as in SMD.
   * - A malformed key or a non-object value throws a `PathElementError`.
   */
  static fromFieldsV1(json: unknown): FieldSet {
    return readNode(json).children ?? new FieldSet();
  }
}

const EMPTY = new FieldSet();

function readNode(json: unknown): { children: FieldSet | undefined; member: boolean } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new TypeError(`FieldsV1 nodes must be JSON objects, got ${JSON.stringify(json)}`);
  }
  let children: FieldSet | undefined;
  let member = false;
  for (const [key, value] of Object.entries(json)) {
    if (key === '.') {
      member = true;
      continue;
    }
    const element = deserializePathElement(key);
    if (element === undefined) continue;
    const child = readNode(value);
    children ??= new FieldSet();
    if (child.member) {
      const at = search(children.members, element, self);
      if (at < 0) children.members.splice(-at - 1, 0, element);
    }
    if (child.children !== undefined) {
      const at = search(children.children, element, childElement);
      if (at < 0) children.children.splice(-at - 1, 0, { element, set: child.children });
      else children.children[at] = { element, set: children.children[at]!.set.union(child.children) };
    }
  }
  return { children, member: member || children === undefined };
}

type Mode = 'union' | 'intersection' | 'difference';

/** The sorted merge of two member lists; `a` itself when the result has exactly its elements. */
function mergeSorted(a: PathElement[], b: readonly PathElement[], mode: Mode): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(a[i]!, b[j]!);
    if (c < 0) {
      if (mode !== 'intersection') out.push(a[i]!);
      i++;
    } else if (c > 0) {
      if (mode === 'union') out.push(b[j]!);
      j++;
    } else {
      if (mode !== 'difference') out.push(a[i]!);
      i++;
      j++;
    }
  }
  if (mode !== 'intersection') for (; i < a.length; i++) out.push(a[i]!);
  if (mode === 'union') for (; j < b.length; j++) out.push(b[j]!);
  // A union holds all of `a`, the other two hold only elements of `a`: the same length means the same elements.
  return out.length === a.length ? a : out;
}

/** The merge of two child lists; `a` itself when every child of the result is `a`'s, unchanged. */
function mergeChildren(a: Child[], b: readonly Child[], mode: Mode): Child[] {
  const out: Child[] = [];
  let same = true;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(a[i]!.element, b[j]!.element);
    if (c < 0) {
      if (mode !== 'intersection') out.push(a[i]!);
      else same = false;
      i++;
    } else if (c > 0) {
      if (mode === 'union') {
        out.push(b[j]!);
        same = false;
      }
      j++;
    } else {
      const set =
        mode === 'union'
          ? a[i]!.set.union(b[j]!.set)
          : mode === 'intersection'
            ? a[i]!.set.intersection(b[j]!.set)
            : a[i]!.set.difference(b[j]!.set);
      const keep = mode === 'union' || !set.empty();
      if (set === a[i]!.set && keep) out.push(a[i]!);
      else {
        same = false;
        if (keep) out.push({ element: a[i]!.element, set });
      }
      i++;
      j++;
    }
  }
  if (mode !== 'intersection') for (; i < a.length; i++) out.push(a[i]!);
  else if (i < a.length) same = false;
  if (mode === 'union') {
    if (j < b.length) same = false;
    for (; j < b.length; j++) out.push(b[j]!);
  }
  return same ? a : out;
}
