/**
 * A persistent hash trie of string keys, shaped so that Immer copies O(fan-out × depth) per write, not O(N).
 *
 * A node is either a leaf `Map` (at most {@link LEAF_MAX} entries, or any size at the deepest level) or a branch:
 * an array of {@link FAN_OUT} child slots indexed by five bits of the key's hash. Immer drafts the path from the
 * root to one leaf, so a write copies one leaf and one 32-slot array per level, about log32(N) of them.
 *
 * The write functions accept Immer drafts, plain nodes under construction, or a mix (a split moves frozen originals
 * under a plain branch; {@link own} copies those before writing). The read functions work on all of these too.
 * @internal
 */
import { current, isDraft } from 'immer';

/** Child slots per branch; five hash bits per level. */
export const FAN_OUT = 32;
/** A leaf splits into a branch when it grows past this many entries. */
export const LEAF_MAX = 32;
/** 32-bit hashes give six full five-bit levels; a leaf at this depth only holds full hash collisions. */
const MAX_DEPTH = 6;

/** A trie node: a leaf `Map` or a branch of {@link FAN_OUT} slots. `null` marks an empty slot or an empty trie. */
export type TrieNode<V> = ReadonlyMap<string, V> | readonly (TrieNode<V> | null)[];

type MutableNode<V> = Map<string, V> | (MutableNode<V> | null)[];
/** Anything holding a node in a slot: a branch array or the record that holds a trie's root. */
type Slots<V> = { [slot: string | number]: MutableNode<V> | null | unknown };

/** FNV-1a over UTF-16 code units: cheap, stable across runs, and spreads `namespace/name` keys well. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function slotOf(hash: number, depth: number): number {
  return (hash >>> (depth * 5)) & (FAN_OUT - 1);
}

function isLeaf<V>(node: TrieNode<V> | MutableNode<V>): node is Map<string, V> {
  return node instanceof Map;
}

function childOf<V>(node: TrieNode<V>, hash: number, depth: number): TrieNode<V> | null {
  return (node as readonly (TrieNode<V> | null)[])[slotOf(hash, depth)] ?? null;
}

/** Looks `key` up. */
export function trieGet<V>(root: TrieNode<V> | null, key: string, hash = hashKey(key)): V | undefined {
  let node = root;
  for (let depth = 0; node !== null; depth++) {
    if (isLeaf(node)) return node.get(key);
    node = childOf(node, hash, depth);
  }
  return undefined;
}

/** Whether the trie holds `key`. */
export function trieHas<V>(root: TrieNode<V> | null, key: string, hash = hashKey(key)): boolean {
  let node = root;
  for (let depth = 0; node !== null; depth++) {
    if (isLeaf(node)) return node.has(key);
    node = childOf(node, hash, depth);
  }
  return false;
}

/** Every entry of a frozen trie, in hash order (stable for a given set of keys, unrelated to insertion order). */
export function* trieEntries<V>(root: TrieNode<V> | null): Generator<[string, V]> {
  if (root === null) return;
  if (isLeaf(root)) {
    yield* root.entries();
    return;
  }
  for (const child of root as readonly (TrieNode<V> | null)[]) if (child !== null) yield* trieEntries(child);
}

/**
 * Sets `key` in the trie held at `holder[slot]`, creating, splitting or copying nodes as needed.
 * Returns true when the key was new.
 */
export function trieSet<V>(holder: object, slot: string | number, key: string, value: V, hash = hashKey(key)): boolean {
  let parent = holder as Slots<V>;
  let at = slot;
  for (let depth = 0; ; depth++) {
    const node = own<V>(parent, at);
    if (node === null) {
      parent[at] = new Map([[key, value]]);
      return true;
    }
    if (isLeaf(node)) {
      const added = !node.has(key);
      node.set(key, value);
      if (added && node.size > LEAF_MAX && depth < MAX_DEPTH) parent[at] = split(node, depth);
      return added;
    }
    parent = node as unknown as Slots<V>;
    at = slotOf(hash, depth);
  }
}

/**
 * The node at `parent[at]`, ready to be written. Drafts and nodes built during this write are returned as they are;
 * a frozen node reached through a freshly built one (after a split, the moved subtrees are the frozen originals, not
 * drafts) is copied into its slot first, which is what Immer would have done had it been a draft.
 */
function own<V>(parent: Slots<V>, at: string | number): MutableNode<V> | null {
  const node = (parent[at] ?? null) as MutableNode<V> | null;
  if (node === null || isDraft(node) || !Object.isFrozen(node)) return node;
  const copy: MutableNode<V> = isLeaf(node) ? new Map(node) : [...node];
  parent[at] = copy;
  return copy;
}

/** Turns an overfull leaf at `depth` into a branch whose children sit one level deeper. */
function split<V>(leaf: Map<string, V>, depth: number): MutableNode<V> {
  // Reading values through a draft Map would draft every object; current() hands back the plain values instead.
  const plain: Map<string, V> = isDraft(leaf) ? (current(leaf as object) as Map<string, V>) : leaf;
  const branch: (MutableNode<V> | null)[] = new Array<MutableNode<V> | null>(FAN_OUT).fill(null);
  for (const [key, value] of plain) {
    const hash = hashKey(key);
    const child = slotOf(hash, depth);
    // Re-inserting below the branch reuses the overflow rule, so a pathological cluster splits again.
    insertBelow(branch, child, key, value, hash, depth + 1);
  }
  return branch;
}

function insertBelow<V>(
  parent: (MutableNode<V> | null)[], at: number, key: string, value: V, hash: number, depth: number,
): void {
  const node = parent[at] ?? null;
  if (node === null) {
    parent[at] = new Map([[key, value]]);
  } else if (isLeaf(node)) {
    node.set(key, value);
    if (node.size > LEAF_MAX && depth < MAX_DEPTH) parent[at] = split(node, depth);
  } else {
    insertBelow(node, slotOf(hash, depth), key, value, hash, depth + 1);
  }
}

/**
 * Removes `key` from the trie held at `holder[slot]`; empty leaves and branches collapse to `null` so that an emptied
 * trie is `null` again. Returns true when the key was present.
 */
export function trieDelete<V>(holder: object, slot: string | number, key: string, hash = hashKey(key)): boolean {
  return deleteAt<V>(holder as Slots<V>, slot, key, hash, 0);
}

function deleteAt<V>(parent: Slots<V>, at: string | number, key: string, hash: number, depth: number): boolean {
  const node = own<V>(parent, at);
  if (node === null) return false;
  if (isLeaf(node)) {
    // has() first: deleting an absent key from a draft Map would still copy it.
    if (!node.has(key)) return false;
    node.delete(key);
    if (node.size === 0) parent[at] = null;
    return true;
  }
  const child = slotOf(hash, depth);
  if (node[child] === null) return false;
  const removed = deleteAt(node as unknown as Slots<V>, child, key, hash, depth + 1);
  if (removed && node.every((c) => c === null)) parent[at] = null;
  return removed;
}
