/**
 * The structural diff behind every `mutate`: what a recipe changed, as operations that touch nothing else, so that
 * a base missing some of the server's fields (an informer `transform` trimmed it) is patched without losing them.
 */
import { isPlainObject, jsonEqual } from './json-value.js';
import type { OperationPath, PathOperation } from './path-operation.js';

/**
 * The fields that identify an item of a Kubernetes list (its usual list-map keys: containers, env, volumes and
 * ports by `name`, conditions by `type`, owner references by `uid`), looked for in this order.
 */
const ITEM_KEYS = ['name', 'type', 'uid'] as const;

/**
 * The operations that turn `base` into `next`, in an order that applies cleanly one after the other, touching only
 * what differs between them.
 *
 * # Guarantees
 * - Applying the result to `base` (RFC 6902, as kube-apiserver applies it) gives `next` as JSON sees it
 *   (`undefined` properties absent, `undefined` array items `null`); equal inputs give no operation.
 * - **Objects are compared key by key**, at every depth, as controller-runtime's `MergeFrom` compares them: a key
 *   `next` lacks and `base` has is removed, a key `base` lacks is added, and a key neither has is never named. So
 *   applied to an object that has more keys than `base` (the server's object, when `base` is an informer's trimmed
 *   copy), the result keeps them.
 * - **An object or array added where `base` has no member is guarded**: a `test` that the member is absent
 *   (`value: null`) comes right before its `add`. If the server has it (a trimmed base), the whole patch fails
 *   instead of replacing it; `mutate` then runs the recipe again on the server's object.
 * - **Arrays keep the items the recipe kept.** An item of `next` that is the very object of `base` (Immer shares
 *   what a recipe did not change) or an equal primitive is never rewritten: items are removed, inserted and moved
 *   (`move`, which keeps the server's copy whole) around it. A changed item is patched key by key against the base
 *   item it came from: the base item with the same `name` (else `type`, else `uid`) among those the recipe removed
 *   or changed between the same kept neighbours, else the one at the same place when that stretch kept its length
 *   and the two do not name different items. Any other item is written whole.
 * - A value replaced by one of another type (an object by a string, an array by an object) is replaced whole.
 * - Shared references are skipped without a walk, so a result built by spreading the base costs only what changed.
 *
 * # Caveats
 * - A changed list item that could not be matched to its base item (a keyless item changed in the same stretch
 *   where items were also inserted or removed) is written whole: fields of it the base lacked are lost.
 * - A base whose lists lack items of the server's object (a transform that removed items, not keys) gives indexes
 *   that name other items on the server. Trim keys, never list items.
 */
export function diffJson(base: unknown, next: unknown, path: OperationPath = []): PathOperation[] {
  const out: PathOperation[] = [];
  diffInto(base, next, [...path], out);
  return out;
}

function diffInto(base: unknown, next: unknown, path: (string | number)[], out: PathOperation[]): void {
  if (base === next) return;
  if (isPlainObject(base) && isPlainObject(next)) return diffObject(base, next, path, out);
  if (Array.isArray(base) && Array.isArray(next)) return diffArray(base, next, path, out);
  if (!jsonEqual(base, next)) out.push({ op: 'replace', path, value: next });
}

/** A member as JSON sees it: own, and not `undefined`. */
function has(object: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(object, key) && object[key] !== undefined;
}

function diffObject(
  base: Record<string, unknown>,
  next: Record<string, unknown>,
  path: (string | number)[],
  out: PathOperation[],
): void {
  for (const key of Object.keys(base)) {
    if (base[key] !== undefined && !has(next, key)) out.push({ op: 'remove', path: [...path, key] });
  }
  for (const key of Object.keys(next)) {
    const value = next[key];
    if (value === undefined) continue;
    if (has(base, key)) {
      diffInto(base[key], value, [...path, key], out);
      continue;
    }
    if (typeof value === 'object' && value !== null) out.push({ op: 'test', path: [...path, key], value: null });
    out.push({ op: 'add', path: [...path, key], value });
  }
}

/** Where each item of `next` comes from: a base index, and whether it is the base item unchanged. */
interface Sources {
  readonly source: (number | undefined)[];
  readonly kept: boolean[];
  readonly used: boolean[];
}

function diffArray(
  baseItems: readonly unknown[],
  nextItems: readonly unknown[],
  path: (string | number)[],
  out: PathOperation[],
): void {
  const base = baseItems.map(asJsonItem);
  const next = nextItems.map(asJsonItem);
  const sources = keptItems(base, next);
  pairChangedItems(base, next, sources);
  const { source, kept, used } = sources;

  // Removals first, from the highest index, so that each index still names the base item it removes.
  for (let i = base.length - 1; i >= 0; i--) if (!used[i]) out.push({ op: 'remove', path: [...path, i] });
  // Then each position in turn: `work` is the array as the operations so far leave it (base indexes, -1 inserted).
  const work: number[] = [];
  for (let i = 0; i < base.length; i++) if (used[i]) work.push(i);
  for (let j = 0; j < next.length; j++) {
    const from = source[j];
    if (from === undefined) {
      out.push({ op: 'add', path: [...path, j], value: next[j] });
      work.splice(j, 0, -1);
      continue;
    }
    const at = work.indexOf(from, j);
    if (at !== j) {
      out.push({ op: 'move', from: [...path, at], path: [...path, j] });
      work.splice(at, 1);
      work.splice(j, 0, from);
    }
    if (!kept[j]) diffInto(base[from], next[j], [...path, j], out);
  }
}

/** JSON has no `undefined` item: it is written `null`. */
function asJsonItem(item: unknown): unknown {
  return item === undefined ? null : item;
}

/**
 * The items of `next` that are items of `base` unchanged: the same object, or an equal primitive. Each base item
 * serves once; among equal primitives the first one after the previous match is preferred, so that an unchanged
 * order needs no move.
 */
function keptItems(base: readonly unknown[], next: readonly unknown[]): Sources {
  const positions = new Map<unknown, number[]>();
  base.forEach((item, i) => {
    const list = positions.get(item);
    if (list === undefined) positions.set(item, [i]);
    else list.push(i);
  });
  const source: (number | undefined)[] = new Array<number | undefined>(next.length).fill(undefined);
  const kept = new Array<boolean>(next.length).fill(false);
  const used = new Array<boolean>(base.length).fill(false);
  let previous = -1;
  next.forEach((item, j) => {
    const list = positions.get(item);
    if (list === undefined || list.length === 0) return;
    const after = list.findIndex((i) => i > previous);
    const [i] = list.splice(after === -1 ? 0 : after, 1) as [number];
    source[j] = i;
    kept[j] = true;
    used[i] = true;
    previous = i;
  });
  return { source, kept, used };
}

/**
 * Matches each changed item of `next` with the base item it came from: first by identifying field (`name`, else
 * `type`, else `uid`) anywhere in the list, then by position, stretch by stretch. A stretch lies between two kept
 * items that stay in order (the longest such run); it pairs its remaining items in order only when it kept its
 * length, and never two items of which only one has an identifying field.
 */
function pairChangedItems(base: readonly unknown[], next: readonly unknown[], sources: Sources): void {
  const { source, kept, used } = sources;
  const pair = (i: number, j: number): void => {
    source[j] = i;
    used[i] = true;
  };
  const byKey = new Map<string, number[]>();
  base.forEach((item, i) => {
    const key = itemKey(item);
    if (key === undefined || used[i]) return;
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [i]);
    else list.push(i);
  });
  next.forEach((item, j) => {
    const key = kept[j] ? undefined : itemKey(item);
    const i = key === undefined ? undefined : byKey.get(key)?.shift();
    if (i !== undefined) pair(i, j);
  });

  const keptInOrder = longestIncreasingRun(
    next.map((_, j) => j).filter((j) => kept[j]),
    (j) => source[j]!,
  );
  let fromBase = 0;
  let fromNext = 0;
  for (const anchor of [...keptInOrder, undefined]) {
    const untilBase = anchor === undefined ? base.length : source[anchor]!;
    const untilNext = anchor === undefined ? next.length : anchor;
    const removed: number[] = [];
    for (let i = fromBase; i < untilBase; i++) if (!used[i]) removed.push(i);
    const changed: number[] = [];
    for (let j = fromNext; j < untilNext; j++) if (source[j] === undefined) changed.push(j);
    if (removed.length === changed.length) {
      removed.forEach((i, k) => {
        const j = changed[k]!;
        if (itemKey(base[i]) === itemKey(next[j])) pair(i, j);
      });
    }
    fromBase = untilBase + 1;
    fromNext = untilNext + 1;
  }
}

/** The identifying field of a list item, as `field=value`; `undefined` for a primitive or an item without one. */
function itemKey(item: unknown): string | undefined {
  if (!isPlainObject(item)) return undefined;
  for (const field of ITEM_KEYS) {
    const value = item[field];
    if (typeof value === 'string') return `${field}=${value}`;
  }
  return undefined;
}

/** The longest subsequence of `items` whose `rank` strictly increases (patience sorting, O(n log n)). */
function longestIncreasingRun(items: readonly number[], rank: (item: number) => number): number[] {
  const tails: number[] = [];
  const previous = new Array<number>(items.length).fill(-1);
  items.forEach((item, k) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (rank(items[tails[middle]!]!) < rank(item)) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[k] = tails[low - 1]!;
    tails[low] = k;
  });
  const run: number[] = [];
  for (let k = tails.length === 0 ? -1 : tails[tails.length - 1]!; k !== -1; k = previous[k]!) run.push(items[k]!);
  return run.reverse();
}
