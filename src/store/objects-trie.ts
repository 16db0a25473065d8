/**
 * The objects of a snapshot, grouped by the namespace their key spells: a hash trie from namespace to a hash trie
 * from key to object (see `hash-trie.ts`). One namespace's objects form one trie, so `list({ namespace })` reads
 * that trie alone, and while every key spells its object's namespace (`StoreData.namespacesFollowKeys`) the store
 * needs no namespace index of its own: no per-key index entry, no second path copy per write.
 *
 * A key's group is the text before its first '/'. Keys without one (cluster-scoped objects) go in the group
 * {@link CLUSTER_GROUP}, '/', which no text before a '/' can equal. The inner tries are keyed by the whole key, so
 * a lookup never makes the name's string.
 * @internal
 */
import {
  hashKey,
  hashPrefix,
  trieDelete,
  trieDiff,
  trieEntries,
  trieForEach,
  trieGet,
  trieGetPrefix,
  trieOwnValue,
  trieSet,
  trieBuild,
  type TrieNode,
} from './hash-trie.js';

/** Namespace (or {@link CLUSTER_GROUP}) → trie of the objects whose keys spell it. */
export type ObjectsTrie<T> = TrieNode<TrieNode<T>>;

/** The group of keys without a '/': cluster-scoped objects. */
export const CLUSTER_GROUP = '/';
const CLUSTER_HASH = hashKey(CLUSTER_GROUP);

/** The group of `key`, as a string (for writes, which may have to file a new group). */
function groupOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? CLUSTER_GROUP : key.slice(0, slash);
}

/** The trie of `key`'s group, read without making the group's string. */
function groupTrie<T>(root: ObjectsTrie<T> | null, key: string): TrieNode<T> | null {
  const slash = key.indexOf('/');
  const inner =
    slash < 0 ? trieGet(root, CLUSTER_GROUP, CLUSTER_HASH) : trieGetPrefix(root, key, slash, hashPrefix(key, slash));
  return inner ?? null;
}

/** The object under `key`. */
export function objectsGet<T>(root: ObjectsTrie<T> | null, key: string): T | undefined {
  const inner = groupTrie(root, key);
  return inner === null ? undefined : trieGet(inner, key);
}

/** The trie of the objects whose keys spell `namespace` (`null`: none). */
export function objectsOfNamespace<T>(root: ObjectsTrie<T> | null, namespace: string): TrieNode<T> | null {
  if (namespace === '' || namespace.includes('/')) return null;
  return trieGet(root, namespace) ?? null;
}

/** Every namespace some key spells, in hash order. */
export function* namespacesOf<T>(root: ObjectsTrie<T> | null): Generator<string> {
  for (const [group] of trieEntries(root)) if (group !== CLUSTER_GROUP) yield group;
}

/**
 * Sets `key` in the objects trie held at `holder[slot]`; as `trieSet`: returns the object held before, copies the
 * frozen nodes on the way (the group's path in the outer trie, then the key's path in the group's trie) and pushes
 * what it creates on `fresh`.
 */
export function objectsSet<T>(holder: object, slot: string, key: string, object: T, fresh: object[]): T | undefined {
  // The group is found by the key's prefix: its string is made only for a new group.
  const slash = key.indexOf('/');
  const owned =
    slash < 0
      ? trieOwnValue(holder, slot, CLUSTER_GROUP, CLUSTER_GROUP.length, CLUSTER_HASH, fresh)
      : trieOwnValue(holder, slot, key, slash, hashPrefix(key, slash), fresh);
  if (owned === undefined) {
    const group = groupOf(key);
    const hash = hashKey(group);
    const inner: { root: TrieNode<T> | null } = { root: null };
    trieSet(inner, 'root', key, object, fresh);
    trieSet(holder, slot, group, inner.root!, fresh, hash);
    return undefined;
  }
  return trieSet(owned[0], owned[1], key, object, fresh);
}

/** Removes `key` from the objects trie held at `holder[slot]`; an emptied group goes too. True when it was there. */
export function objectsDelete<T>(holder: object, slot: string, key: string, fresh: object[]): boolean {
  const root = ((holder as Record<string, unknown>)[slot] ?? null) as ObjectsTrie<T> | null;
  const inner = groupTrie(root, key);
  if (inner === null || trieGet(inner, key) === undefined) return false;
  const group = groupOf(key);
  const hash = hashKey(group);
  const [leaf, at] = trieOwnValue(holder, slot, group, group.length, hash, fresh)!;
  trieDelete(leaf, at, key, fresh);
  if (leaf[at] === null) trieDelete(holder, slot, group, fresh, hash);
  return true;
}

/** Calls `visit` on every object, group by group, each in hash order. */
export function objectsForEach<T>(root: ObjectsTrie<T> | null, visit: (key: string, object: T) => void): void {
  trieForEach(root, (_, inner) => trieForEach(inner, visit));
}

/** Every `[key, object]`, group by group, each in hash order. */
export function* objectsEntries<T>(root: ObjectsTrie<T> | null): Generator<[string, T]> {
  for (const [, inner] of trieEntries(root)) yield* trieEntries(inner);
}

/** `trieDiff` for objects tries: groups the two share are skipped unread, as are shared subtrees within a group. */
export function objectsDiff<T>(
  before: ObjectsTrie<T> | null,
  after: ObjectsTrie<T> | null,
  visit: (key: string, before: T | undefined, after: T | undefined) => void,
): void {
  trieDiff(before, after, (_, a, b) => trieDiff(a ?? null, b ?? null, visit));
}

/**
 * The objects trie of a listing of distinct keys, built bottom-up with exact-size leaves (see `trieBuild`), so that
 * filling an empty cache leaves no growth slack to compact. Consecutive keys of one namespace (as an API server
 * lists them) cost no group string each. Returns `undefined`, with nothing built, when a key occurs twice.
 */
export function objectsBuild<T>(
  keys: readonly string[],
  objects: readonly T[],
  fresh: object[],
): ObjectsTrie<T> | null | undefined {
  const count = keys.length;
  const hashes = new Int32Array(count);
  const groupOfEntry = new Int32Array(count);
  const groups: string[] = [];
  const sizes: number[] = [];
  const ids = new Map<string, number>();
  let last = '';
  let lastSlash = -2;
  let lastId = -1;
  for (let i = 0; i < count; i++) {
    const key = keys[i]!;
    hashes[i] = hashKey(key);
    const slash = key.indexOf('/');
    if (slash !== lastSlash || (slash >= 0 && !key.startsWith(last))) {
      last = slash < 0 ? CLUSTER_GROUP : key.slice(0, slash);
      lastSlash = slash;
      let id = ids.get(last);
      if (id === undefined) {
        id = groups.length;
        ids.set(last, id);
        groups.push(last);
        sizes.push(0);
      }
      lastId = id;
    }
    groupOfEntry[i] = lastId;
    sizes[lastId]! += 1;
  }
  // The entries grouped, in listed order within a group.
  const starts = new Int32Array(groups.length + 1);
  for (let g = 0; g < groups.length; g++) starts[g + 1] = starts[g]! + sizes[g]!;
  const next = starts.slice(0, groups.length);
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[next[groupOfEntry[i]!]!++] = i;
  const inner: TrieNode<T>[] = [];
  for (let g = 0; g < groups.length; g++) {
    const root = trieBuild(order.subarray(starts[g]!, starts[g + 1]!), hashes, keys, objects, fresh);
    if (root === undefined) return undefined;
    inner.push(root!);
  }
  const groupHashes = Int32Array.from(groups, hashKey);
  const groupOrder = Int32Array.from(groups, (_, g) => g);
  return trieBuild(groupOrder, groupHashes, groups, inner, fresh) as ObjectsTrie<T> | null;
}
