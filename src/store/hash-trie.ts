/**
 * A persistent hash trie of string keys, updated by path copying: a write copies one leaf and one branch per level
 * (about log32(N) nodes) and shares everything else with the previous version.
 *
 * A node is a leaf, a flat array `[hash0, key0, value0, hash1, key1, value1, …]` of at most {@link LEAF_MAX}
 * entries (any size at the deepest level), or a branch: an array of {@link FAN_OUT} children indexed by five bits of
 * the key's hash. A leaf starts with a number (a hash) and a branch with a node or `null`, which tells them apart.
 * Flat arrays keep copies cheap and can be made read-only with `Object.freeze` alone (a frozen `Map` would still
 * accept `set`). Each entry carries its key's hash, so a lookup compares numbers held in the leaf and reads a key
 * string only on a hash match: in a large cache the key strings are cold, and comparing them one by one would cost a
 * cache miss per entry.
 *
 * Writes are transient, as in Clojure's transients: a frozen node is shared and is copied before it is written; an
 * unfrozen node was created by the current batch and is written in place. Every node a write creates is pushed on
 * the batch's `fresh` list, and {@link freezeFresh} freezes exactly those at the end of the batch, so a batch of k
 * writes copies each touched node once, not k times, and never walks the shared rest of the trie.
 * @internal
 */

/** Child slots per branch; five hash bits per level. */
export const FAN_OUT = 32;
/** A leaf splits into a branch when it grows past this many entries. */
export const LEAF_MAX = 32;
/** 32-bit hashes give six full five-bit levels; a leaf at this depth only holds full hash collisions. */
const MAX_DEPTH = 6;
/** Slots per leaf entry: hash, key, value. */
const ENTRY = 3;

/** A leaf: per entry its key's hash, the key, then the value. */
export interface TrieLeaf<V> extends ReadonlyArray<number | string | V> {
  readonly __leafOf?: V;
}

/** A branch: {@link FAN_OUT} child slots, `null` where empty. */
export interface TrieBranch<V> extends ReadonlyArray<TrieNode<V> | null> {
  readonly __branchOf?: V;
}

/** A trie node. `null` (never a node) marks an empty slot or an empty trie. */
export type TrieNode<V> = TrieLeaf<V> | TrieBranch<V>;

type Node = unknown[];
/** Anything holding a node in a slot: a branch or the record that holds a trie's root. */
type Slots = Record<string | number, unknown>;

/** FNV-1a over UTF-16 code units, as a signed 32-bit integer (a small integer in V8, stored unboxed in a leaf). */
export function hashKey(key: string): number {
  return hashPrefix(key, key.length);
}

/** {@link hashKey} of `key.slice(0, end)`, without making that string. */
export function hashPrefix(key: string, end: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < end; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

function isLeaf(node: Node): boolean {
  return typeof node[0] === 'number';
}

function slotOf(hash: number, depth: number): number {
  return (hash >>> (depth * 5)) & (FAN_OUT - 1);
}

/** Position of `key` (with `hash`) in a leaf, or -1. */
function find(leaf: readonly unknown[], key: string, hash: number): number {
  for (let i = 0; i < leaf.length; i += ENTRY) if (leaf[i] === hash && leaf[i + 1] === key) return i;
  return -1;
}

const MISSING: unique symbol = Symbol('missing');

/** The value under `key` in the subtree `node` sitting at `depth`, or {@link MISSING}. */
function lookup(node: Node | null, key: string, hash: number, depth: number): unknown {
  for (; node !== null; depth++) {
    if (isLeaf(node)) {
      const at = find(node, key, hash);
      return at < 0 ? MISSING : node[at + 2];
    }
    node = (node[slotOf(hash, depth)] ?? null) as Node | null;
  }
  return MISSING;
}

/** Looks `key` up (`hash` is `hashKey(key)`, when the caller has it). */
export function trieGet<V>(root: TrieNode<V> | null, key: string, hash = hashKey(key)): V | undefined {
  const value = lookup(root as Node | null, key, hash, 0);
  return value === MISSING ? undefined : (value as V);
}

/**
 * Looks up the key `key.slice(0, end)` (`hash` is its {@link hashPrefix}) without making that string: a lookup by
 * a prefix of a longer key, such as the namespace of a `namespace/name` key.
 */
export function trieGetPrefix<V>(root: TrieNode<V> | null, key: string, end: number, hash: number): V | undefined {
  let node = root as Node | null;
  for (let depth = 0; node !== null; depth++) {
    if (isLeaf(node)) {
      for (let i = 0; i < node.length; i += ENTRY) {
        if (node[i] !== hash) continue;
        const candidate = node[i + 1] as string;
        if (candidate.length === end && key.startsWith(candidate)) return node[i + 2] as V;
      }
      return undefined;
    }
    node = (node[slotOf(hash, depth)] ?? null) as Node | null;
  }
  return undefined;
}

/**
 * The leaf holding the key `key.slice(0, end)` (`hash`: its {@link hashPrefix}) in the trie held at `holder[slot]`,
 * made writable (frozen nodes on its path are copied and pushed on `fresh`), and the position of the key's value in
 * it: `[leaf, at]`, with the value in `leaf[at]`. So a value that is itself a trie (a trie of tries) can be written
 * in place with `trieSet(leaf, at, …)`. Undefined when the trie does not hold the key; the path to where it would
 * be is made writable all the same (a caller about to insert it loses nothing; one that must copy nothing on a miss
 * looks the key up first).
 */
export function trieOwnValue(
  holder: object,
  slot: string | number,
  key: string,
  end: number,
  hash: number,
  fresh: object[],
): [leaf: unknown[], at: number] | undefined {
  let parent = holder as Slots;
  let at: string | number = slot;
  for (let depth = 0; ; depth++) {
    const node = own(parent, at, fresh);
    if (node === null) return undefined;
    if (isLeaf(node)) {
      for (let i = 0; i < node.length; i += ENTRY) {
        if (node[i] !== hash) continue;
        const candidate = node[i + 1] as string;
        if (candidate.length === end && key.startsWith(candidate)) return [node, i + 2];
      }
      return undefined;
    }
    parent = node as unknown as Slots;
    at = slotOf(hash, depth);
  }
}

/** Whether the trie holds `key`. */
export function trieHas<V>(root: TrieNode<V> | null, key: string): boolean {
  return lookup(root as Node | null, key, hashKey(key), 0) !== MISSING;
}

/** Every entry, in hash order (stable for a given set of keys, unrelated to insertion order). */
export function* trieEntries<V>(root: TrieNode<V> | null): Generator<[string, V]> {
  if (root === null) return;
  const node = root as Node;
  if (isLeaf(node)) {
    for (let i = 0; i < node.length; i += ENTRY) yield [node[i + 1] as string, node[i + 2] as V];
    return;
  }
  for (const child of node) if (child !== null) yield* trieEntries(child as TrieNode<V>);
}

/** Calls `visit` on every entry; the allocation-free form of {@link trieEntries} for hot loops. */
export function trieForEach<V>(root: TrieNode<V> | null, visit: (key: string, value: V) => void): void {
  if (root === null) return;
  const node = root as Node;
  if (isLeaf(node)) {
    for (let i = 0; i < node.length; i += ENTRY) visit(node[i + 1] as string, node[i + 2] as V);
    return;
  }
  for (const child of node) if (child !== null) trieForEach(child as TrieNode<V>, visit);
}

/** The node in `parent[at]`, writable: the node itself if this batch created it, else a copy put in its place. */
function own(parent: Slots, at: string | number, fresh: object[]): Node | null {
  const node = (parent[at] ?? null) as Node | null;
  if (node === null || !Object.isFrozen(node)) return node;
  // Spread, not slice(): V8's slice() of a frozen array takes a slow path, about 50 times slower.
  const copy = [...node];
  parent[at] = copy;
  fresh.push(copy);
  return copy;
}

function newLeaf(hash: number, key: string, value: unknown, fresh: object[]): Node {
  const leaf = [hash, key, value];
  fresh.push(leaf);
  return leaf;
}

/**
 * Sets `key` in the trie held at `holder[slot]`, copying the frozen nodes on the way and splitting an overfull leaf.
 * Returns the value the key held before (`undefined` when it was new), so that a caller needs no lookup of its own;
 * values are never `undefined`. Setting the value a key already holds copies nothing. Created nodes go on `fresh`.
 */
export function trieSet<V>(
  holder: object,
  slot: string | number,
  key: string,
  value: V,
  fresh: object[],
  hash = hashKey(key),
): V | undefined {
  let parent = holder as Slots;
  let at: string | number = slot;
  for (let depth = 0; ; depth++) {
    const shared = (parent[at] ?? null) as Node | null;
    if (shared === null) {
      parent[at] = newLeaf(hash, key, value, fresh);
      return undefined;
    }
    if (isLeaf(shared)) {
      const found = find(shared, key, hash);
      if (found >= 0) {
        const previous = shared[found + 2] as V;
        if (previous !== value) own(parent, at, fresh)![found + 2] = value;
        return previous;
      }
      const leaf = own(parent, at, fresh)!;
      leaf.push(hash, key, value);
      if (leaf.length > ENTRY * LEAF_MAX && depth < MAX_DEPTH) parent[at] = split(leaf, depth, fresh);
      return undefined;
    }
    parent = own(parent, at, fresh) as unknown as Slots;
    at = slotOf(hash, depth);
  }
}

/** Turns an overfull leaf at `depth` into a branch whose children sit one level deeper. */
function split(leaf: Node, depth: number, fresh: object[]): Node {
  const branch: Node = new Array<Node | null>(FAN_OUT).fill(null);
  fresh.push(branch);
  // Re-inserting below the branch reuses the overflow rule, so a pathological cluster splits again.
  for (let i = 0; i < leaf.length; i += ENTRY)
    insertBelow(branch, leaf[i] as number, leaf[i + 1] as string, leaf[i + 2], depth, fresh);
  return branch;
}

function insertBelow(branch: Node, hash: number, key: string, value: unknown, depth: number, fresh: object[]): void {
  const at = slotOf(hash, depth);
  const node = (branch[at] ?? null) as Node | null;
  if (node === null) {
    branch[at] = newLeaf(hash, key, value, fresh);
  } else if (isLeaf(node)) {
    node.push(hash, key, value);
    if (node.length > ENTRY * LEAF_MAX && depth + 1 < MAX_DEPTH) branch[at] = split(node, depth + 1, fresh);
  } else {
    insertBelow(node, hash, key, value, depth + 1, fresh);
  }
}

/**
 * Removes `key` from the trie held at `holder[slot]`; empty leaves and branches collapse to `null` so that an emptied
 * trie is `null` again. Returns true when the key was present. Removing an absent key copies nothing. Created nodes
 * go on `fresh`.
 */
export function trieDelete(
  holder: object,
  slot: string | number,
  key: string,
  fresh: object[],
  hash = hashKey(key),
): boolean {
  return deleteAt(holder as Slots, slot, key, hash, 0, fresh);
}

function deleteAt(
  parent: Slots,
  at: string | number,
  key: string,
  hash: number,
  depth: number,
  fresh: object[],
): boolean {
  const shared = (parent[at] ?? null) as Node | null;
  if (shared === null) return false;
  if (isLeaf(shared)) {
    const found = find(shared, key, hash);
    if (found < 0) return false;
    if (shared.length === ENTRY) {
      parent[at] = null;
      return true;
    }
    own(parent, at, fresh)!.splice(found, ENTRY);
    return true;
  }
  const child = slotOf(hash, depth);
  if ((shared[child] ?? null) === null) return false;
  // Look before copying, so that a miss leaves the shared path alone.
  if (lookup(shared[child] as Node, key, hash, depth + 1) === MISSING) return false;
  const branch = own(parent, at, fresh)!;
  deleteAt(branch as unknown as Slots, child, key, hash, depth + 1, fresh);
  if (branch.every((c) => c === null)) parent[at] = null;
  return true;
}

/**
 * Replaces every leaf the current batch created under `holder[slot]` by an exact-size copy (pushed on `fresh`), and
 * returns the number of leaves copied. A leaf filled by `push` keeps V8's growth slack, about 60% more slots than
 * entries, which a frozen array never gives back; a trie built in one batch (a relist into an empty cache) is
 * compacted once, so that each entry costs its three slots. Stops at frozen nodes: they are shared, and were
 * compacted (or copied exactly) when they were made. `nested`: the values are tries too (a trie of tries), compacted
 * first.
 */
export function compactFresh(holder: object, slot: string | number, fresh: object[], nested = false): void {
  const parent = holder as Slots;
  const node = (parent[slot] ?? null) as Node | null;
  if (node === null || Object.isFrozen(node)) return;
  if (isLeaf(node)) {
    if (nested) for (let i = 2; i < node.length; i += ENTRY) compactFresh(node, i, fresh);
    const copy = [...node];
    parent[slot] = copy;
    fresh.push(copy);
    return;
  }
  for (let i = 0; i < FAN_OUT; i++) if (node[i] !== null) compactFresh(node, i, fresh, nested);
}

/**
 * Freezes what a batch created: trie nodes and any other record the batch listed, such as index buckets. Nodes
 * created and then replaced within the batch are frozen too, which is harmless.
 */
export function freezeFresh(fresh: readonly object[]): void {
  for (const node of fresh) Object.freeze(node);
}

/**
 * Calls `visit(key, before, after)` for every key whose value differs between two tries: `before` is `undefined`
 * for a key only `after` holds, `after` for a key only `before` holds; values are compared by identity.
 *
 * Subtrees the two tries share (the same node) are skipped without being read, so for a trie derived from the
 * other by k writes the cost is about k × depth × {@link FAN_OUT} reference comparisons, whatever the size of the
 * trie. Tries of unrelated lineages are compared correctly too, at the cost of reading both.
 */
export function trieDiff<V>(
  before: TrieNode<V> | null,
  after: TrieNode<V> | null,
  visit: (key: string, before: V | undefined, after: V | undefined) => void,
): void {
  diffAt(before as Node | null, after as Node | null, 0, visit as Visit);
}

type Visit = (key: string, before: unknown, after: unknown) => void;

function diffAt(a: Node | null, b: Node | null, depth: number, visit: Visit): void {
  if (a === b) return;
  if (a === null) {
    forEachEntry(b!, (_, key, value) => visit(key, undefined, value));
    return;
  }
  if (b === null) {
    forEachEntry(a, (_, key, value) => visit(key, value, undefined));
    return;
  }
  const aLeaf = isLeaf(a);
  const bLeaf = isLeaf(b);
  if (!aLeaf && !bLeaf) {
    // The hot path: compare child slots by reference, and descend only where they differ.
    for (let i = 0; i < FAN_OUT; i++) {
      const before = a[i] as Node | null;
      const after = b[i] as Node | null;
      if (before !== after) diffAt(before, after, depth + 1, visit);
    }
    return;
  }
  if (aLeaf && bLeaf) {
    for (let i = 0; i < a.length; i += ENTRY) {
      const at = find(b, a[i + 1] as string, a[i] as number);
      if (at < 0) visit(a[i + 1] as string, a[i + 2], undefined);
      else if (b[at + 2] !== a[i + 2]) visit(a[i + 1] as string, a[i + 2], b[at + 2]);
    }
    for (let j = 0; j < b.length; j += ENTRY) {
      if (find(a, b[j + 1] as string, b[j] as number) < 0) visit(b[j + 1] as string, undefined, b[j + 2]);
    }
    return;
  }
  // A leaf against a branch (a leaf that split, a trie of another lineage): look each entry up on the other side.
  // Both hold the keys of one slot range, so this is bounded by what that range holds.
  forEachEntry(a, (hash, key, value) => {
    const other = lookup(b, key, hash, depth);
    if (other === MISSING) visit(key, value, undefined);
    else if (other !== value) visit(key, value, other);
  });
  forEachEntry(b, (hash, key, value) => {
    if (lookup(a, key, hash, depth) === MISSING) visit(key, undefined, value);
  });
}

/** Every entry below `node` with its hash (a leaf's entries carry it; nothing is rehashed). */
function forEachEntry(node: Node, visit: (hash: number, key: string, value: unknown) => void): void {
  if (isLeaf(node)) {
    for (let i = 0; i < node.length; i += ENTRY) visit(node[i] as number, node[i + 1] as string, node[i + 2]);
    return;
  }
  for (const child of node) if (child !== null) forEachEntry(child as Node, visit);
}

/**
 * Builds a trie of distinct new keys bottom-up: the entries are sorted by hash slot level by level and every leaf is
 * cut at its final size, so no leaf is filled by `push` (with V8's growth slack) and none is split or compacted
 * later. The shape is the one inserting the same keys one by one would give. The trie holds the entries `order`
 * lists (in that order within a leaf; `order` is reordered in place), entry `i` being `hashes[i]`, `keys[i]`,
 * `values[i]`; every node created is pushed on `fresh`. Returns `undefined`, having built nothing that escapes, when
 * a key occurs twice (the caller then inserts one by one, in order).
 */
export function trieBuild<V>(
  order: Int32Array,
  hashes: Int32Array,
  keys: readonly string[],
  values: readonly V[],
  fresh: object[],
): TrieNode<V> | null | undefined {
  if (order.length === 0) return null;
  const built: Node[] = [];
  const root = buildAt(order, new Int32Array(order.length), 0, hashes, keys, values as readonly unknown[], built);
  if (root === undefined) return undefined;
  for (const node of built) fresh.push(node);
  return root as TrieNode<V>;
}

const leafScratch: unknown[] = [];

/** The subtree of the entries `order` at `depth`; `spare` is scratch space of the same length. */
function buildAt(
  order: Int32Array,
  spare: Int32Array,
  depth: number,
  hashes: Int32Array,
  keys: readonly string[],
  values: readonly unknown[],
  built: Node[],
): Node | undefined {
  if (order.length <= LEAF_MAX || depth >= MAX_DEPTH) {
    // Filled by push into one scratch array, then copied: `slice()` of a packed array is exact-size and packed
    // (`new Array(n)` would be exact-size but holey, which every later read pays for).
    const scratch = leafScratch;
    scratch.length = 0;
    for (let i = 0; i < order.length; i++) {
      const entry = order[i]!;
      const hash = hashes[entry]!;
      const key = keys[entry]!;
      for (let j = 0; j < scratch.length; j += ENTRY)
        if (scratch[j] === hash && scratch[j + 1] === key) return undefined;
      scratch.push(hash, key, values[entry]);
    }
    const leaf = scratch.slice();
    scratch.length = 0;
    built.push(leaf);
    return leaf;
  }
  // A counting sort by this level's slot, into `spare`; each slot's run is then a view of it.
  const starts = new Int32Array(FAN_OUT + 1);
  for (let i = 0; i < order.length; i++) starts[slotOf(hashes[order[i]!]!, depth) + 1]! += 1;
  for (let s = 0; s < FAN_OUT; s++) starts[s + 1]! += starts[s]!;
  const next = starts.slice(0, FAN_OUT);
  for (let i = 0; i < order.length; i++) {
    const entry = order[i]!;
    spare[next[slotOf(hashes[entry]!, depth)]!++] = entry;
  }
  const branch: Node = new Array<Node | null>(FAN_OUT).fill(null);
  for (let s = 0; s < FAN_OUT; s++) {
    if (starts[s] === starts[s + 1]) continue;
    const run = spare.subarray(starts[s]!, starts[s + 1]!);
    const child = buildAt(run, order.subarray(starts[s]!, starts[s + 1]!), depth + 1, hashes, keys, values, built);
    if (child === undefined) return undefined;
    branch[s] = child;
  }
  built.push(branch);
  return branch;
}
