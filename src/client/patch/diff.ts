/**
 * A structural JSON diff, for the one case where Immer has no fine-grained patches to give: a recipe that returns a
 * new object instead of changing its draft (Immer then reports a single replacement of the whole document).
 */
import { isPlainObject, jsonEqual } from './json-value.js';
import type { PathOperation } from './path-operation.js';

/**
 * The operations that turn `base` into `next`, in an order that applies cleanly one after the other.
 *
 * # Guarantees
 * - Applying the result to `base` (RFC 6902 semantics) gives `next` as JSON sees it (`undefined` properties
 *   absent, `undefined` array items `null`); equal inputs give no operation.
 * - Shared references are skipped without a walk, so a result built by spreading the base costs only what changed.
 * - Arrays are compared index by index: changed items are patched in place, a longer array gets `add`s at its end,
 *   a shorter one `remove`s from its end (highest index first).
 */
export function diffJson(base: unknown, next: unknown, path: readonly (string | number)[] = []): PathOperation[] {
  const out: PathOperation[] = [];
  diffInto(base, next, [...path], out);
  return out;
}

function diffInto(base: unknown, next: unknown, path: (string | number)[], out: PathOperation[]): void {
  if (base === next) return;
  if (isPlainObject(base) && isPlainObject(next)) {
    for (const key of Object.keys(base)) {
      if (base[key] !== undefined && next[key] === undefined) out.push({ op: 'remove', path: [...path, key] });
    }
    for (const key of Object.keys(next)) {
      const value = next[key];
      if (value === undefined) continue;
      if (base[key] === undefined) out.push({ op: 'add', path: [...path, key], value });
      else diffInto(base[key], value, [...path, key], out);
    }
    return;
  }
  if (Array.isArray(base) && Array.isArray(next)) {
    const shared = Math.min(base.length, next.length);
    for (let i = 0; i < shared; i++) diffInto(base[i] ?? null, next[i] ?? null, [...path, i], out);
    for (let i = shared; i < next.length; i++) out.push({ op: 'add', path: [...path, i], value: next[i] ?? null });
    for (let i = base.length - 1; i >= shared; i--) out.push({ op: 'remove', path: [...path, i] });
    return;
  }
  if (!jsonEqual(base, next)) out.push({ op: 'replace', path, value: next });
}
