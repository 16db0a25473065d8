/**
 * Running user key functions for the views: normalising what they return, and reporting what they get wrong.
 * @internal
 */
import { describeValue, messageOf } from '../error-messages/index.js';
import type { JoinKeys } from './types.js';

/** Where a key function's failures are reported (a view step's row writer). */
export interface ProblemSink {
  /** Reports one bad result, with the key of the object concerned. */
  problem(message: string, key?: string): void;
}

/** Keys as the views keep them: none, one (the common case, no allocation), or several distinct ones. */
export type KeySet = undefined | string | readonly string[];

/**
 * Runs `fn` on `object` and normalises the keys it returns: `null`, `undefined` and `''` are no key, duplicates
 * count once. When `report` is given, a throw or a value that is not a key is reported there (the object then has
 * no key, or only its valid ones); without it (re-reading an object that was reported when it came in) they are
 * ignored.
 */
export function keysOf<T>(
  fn: (object: T) => JoinKeys,
  object: T,
  what: string,
  key: string,
  report: ProblemSink | undefined,
): KeySet {
  let raw: JoinKeys;
  try {
    raw = fn(object);
  } catch (error) {
    report?.problem(`${what} threw on ${key}; it is left out: ${messageOf(error)}`, key);
    return undefined;
  }
  if (typeof raw === 'string') return raw === '' ? undefined : raw;
  if (raw === null || raw === undefined) return undefined;
  return keysOfValue(raw, what, key, report);
}

/** {@link keysOf} for what is neither a string nor nothing: kept apart so that the common path stays small. */
function keysOfValue(raw: JoinKeys, what: string, key: string, report: ProblemSink | undefined): KeySet {
  if (typeof raw !== 'object' || typeof (raw as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    report?.problem(`${what} returned ${describeValue(raw)} for ${key}, not a key or keys; it is left out`, key);
    return undefined;
  }
  const keys: string[] = [];
  try {
    for (const value of raw as Iterable<unknown>) {
      if (value === null || value === undefined || value === '') continue;
      if (typeof value !== 'string') {
        report?.problem(
          `${what} returned ${describeValue(value)} among the keys of ${key}; that value is skipped`,
          key,
        );
        continue;
      }
      if (!keys.includes(value)) keys.push(value);
    }
  } catch (error) {
    report?.problem(
      `${what} threw while listing the keys of ${key}; the keys before the throw are kept: ${messageOf(error)}`,
      key,
    );
  }
  return keys.length === 0 ? undefined : keys.length === 1 ? keys[0] : keys;
}

/** Whether `keys` holds `key`. */
export function hasKey(keys: KeySet, key: string): boolean {
  return keys === key || (typeof keys === 'object' && keys.includes(key));
}

/** Calls `visit` on every key of `keys`. */
export function forEachKey(keys: KeySet, visit: (key: string) => void): void {
  if (keys === undefined) return;
  if (typeof keys === 'string') visit(keys);
  else for (const key of keys) visit(key);
}

/**
 * The metadata whose `objectKey` is `key`: `{ namespace, name }` for `namespace/name`, `{ name }` for a key without
 * '/'; `undefined` for a key no object can have (an empty part: `/x`, `x/`).
 */
export function metadataForKey(key: string): { readonly name: string; readonly namespace?: string } | undefined {
  const slash = key.indexOf('/');
  if (slash < 0) return key === '' ? undefined : Object.freeze({ name: key });
  const namespace = key.slice(0, slash);
  const name = key.slice(slash + 1);
  return namespace === '' || name === '' ? undefined : Object.freeze({ namespace, name });
}
