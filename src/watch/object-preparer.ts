/**
 * What the reflector does with each object it receives: strip, transform (falling back to the untransformed object
 * when the user's transform throws), deep-freeze, and report the bad ones.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { messageOf } from '../error-messages/index.js';
import { deepFreeze, freezeJsonTree, hasName, objectKey } from '../objects/index.js';
import type { ResolvedOptions } from './options.js';
import type { ProblemReport } from './reflector-state.js';

/**
 * Prepares incoming objects for one listWatch subscription, and reports the bad ones (the reflector's step counts
 * and emits them).
 *
 * # Guarantees
 * - `prepare` never throws and never loses an object it was given: a transform that throws yields the stripped,
 *   untransformed object plus a `TransformFailed` report.
 * - Every object it returns is deep-frozen, so the store's own freeze finds it done. An object decoded from a watch
 *   line by `JSON.parse` and not transformed is a plain tree, frozen with the cheaper {@link freezeJsonTree}; anything
 *   else (a list page from a transport, a transform's result) goes through the general {@link deepFreeze}.
 */
export class ObjectPreparer<T extends KubernetesObject> {
  constructor(
    private readonly opts: ResolvedOptions<T>,
    private readonly report: (problem: ProblemReport) => void,
  ) {}

  /**
   * The object as the cache should hold it, deep-frozen; reports (and survives) a failing transform. `parsedTree`
   * says that `raw` came straight from `JSON.parse` (plain objects and arrays, nothing shared).
   */
  prepare(raw: T, what: string, parsedTree = false): T {
    const stripped = this.opts.strip(raw);
    const transform = this.opts.transform;
    // Stripping copies the top and metadata by spreading, so a parsed tree stays a tree.
    if (transform === undefined) return parsedTree ? freezeJsonTree(stripped) : deepFreeze(stripped);
    let result: T;
    try {
      result = transform(stripped);
    } catch (err) {
      return this.untransformed(raw, stripped, what, `transform threw: ${messageOf(err)}`);
    }
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      return this.untransformed(
        raw,
        stripped,
        what,
        `transform returned ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result}, not an object`,
      );
    }
    try {
      return deepFreeze(result);
    } catch (err) {
      return this.untransformed(
        raw,
        stripped,
        what,
        `the object transform returned cannot be deep-frozen: ${messageOf(err)}`,
      );
    }
  }

  /** Reports why the transform of `raw` failed and gives the object as stripped, frozen. */
  private untransformed(raw: T, stripped: T, what: string, why: string): T {
    const key = objectKey(raw);
    this.report({ reason: 'TransformFailed', message: `${why}; ${what} ${key} kept untransformed`, key });
    return deepFreeze(stripped);
  }

  /**
   * Validates and prepares one list page. Items without a name are skipped (they have no key) and reported once per
   * page with their number; every other item is kept, transformed or not. An item without `apiVersion` or `kind`
   * gets the listed resource's: kube-apiserver leaves them out of list items but sends them on watch events, and a
   * cached object should look the same whichever way it arrived (Events and owner references need them).
   */
  preparePage(items: readonly unknown[], page: number, typeMeta: TypeMeta): T[] {
    const accepted: T[] = [];
    let missing = 0;
    for (const item of items) {
      if (hasName(item)) accepted.push(this.prepare(withTypeMeta(item as T, typeMeta), 'listed'));
      else missing += 1;
    }
    if (missing > 0) {
      this.report({
        reason: 'MissingName',
        message: `${missing} listed object(s) without metadata.name on page ${page} skipped`,
        n: missing,
      });
    }
    return accepted;
  }
}

/** The `apiVersion` and `kind` of the listed resource. */
export interface TypeMeta {
  readonly apiVersion: string;
  readonly kind: string;
}

function withTypeMeta<T extends KubernetesObject>(item: T, typeMeta: TypeMeta): T {
  if (item.apiVersion !== undefined && item.kind !== undefined) return item;
  return { ...item, apiVersion: item.apiVersion ?? typeMeta.apiVersion, kind: item.kind ?? typeMeta.kind };
}
