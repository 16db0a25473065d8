/**
 * What the reflector does with each object it receives: strip, transform (falling back to the untransformed object
 * when the user's transform throws), deep-freeze, and report the bad ones.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { messageOf } from '../error-messages/index.js';
import { deepFreeze, freezeJsonTree, hasName, objectKey } from '../objects/index.js';
import { matchesShard, type ShardedObject } from '../sharding/index.js';
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

  /** Whether `raw` lies in the watch's shard (always, unsharded): the client-side half of `shard`. */
  inShard(raw: unknown): boolean {
    const shard = this.opts.shard;
    return shard === undefined || matchesShard(shard.ranges, raw as ShardedObject);
  }

  /**
   * The object as the cache should hold it, deep-frozen; reports (and survives) a failing transform. `parsedTree`
   * says that `raw` came straight from `JSON.parse` (plain objects and arrays, nothing shared).
   */
  prepare(raw: T, what: string, parsedTree = false, typeMeta?: TypeMeta): T {
    const stripped = typeMeta === undefined ? this.opts.strip(raw) : withTypeMeta(this.opts.strip(raw), typeMeta);
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
   * cached object should look the same whichever way it arrived (Events and owner references need them). Items
   * outside the watch's shard (a server that ignored `shardSelector` sent them) are left out, silently: they are
   * not this watch's objects.
   */
  preparePage(items: readonly unknown[], page: number, typeMeta: TypeMeta): T[] {
    const accepted: T[] = [];
    let missing = 0;
    for (const item of items) {
      if (!this.inShard(item)) continue;
      if (hasName(item)) accepted.push(this.prepare(item as T, 'listed', false, typeMeta));
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

/**
 * `item` with `apiVersion` and `kind` (its own where it has them), as a new object whose top level holds exactly
 * those two fields first and then the item's own. A spread or an assignment of the two extra fields leaves V8 an
 * object with an out-of-object property store, about 24 B more per cached object than an object literal of the
 * exact shape; so the literal is compiled once per shape of list item (a kind's items share one or two) and reused.
 */
function withTypeMeta<T extends KubernetesObject>(item: T, typeMeta: TypeMeta): T {
  if (item.apiVersion !== undefined && item.kind !== undefined) return item;
  const apiVersion = item.apiVersion ?? typeMeta.apiVersion;
  const kind = item.kind ?? typeMeta.kind;
  return shapeOf(item)?.(item, apiVersion, kind) ?? { ...item, apiVersion, kind };
}

type Copier = (item: object, apiVersion: string, kind: string) => never;

/** The copier of the last shape seen, and its own keys (not `apiVersion` or `kind`). */
let lastKeys: readonly string[] = [];
let lastCopier: Copier | undefined;
/** Copiers by shape (own keys joined with newlines); bounded, as the shapes of a server's objects are few. */
const copiers = new Map<string, Copier | undefined>();
const MAX_SHAPES = 256;

/** The copier for `item`'s shape; undefined for a shape that cannot be compiled safely (the caller spreads). */
function shapeOf(item: object): Copier | undefined {
  let i = 0;
  if (Object.getPrototypeOf(item) !== Object.prototype) return undefined;
  let same = lastCopier !== undefined;
  if (same) {
    for (const key in item) {
      if (key === 'apiVersion' || key === 'kind') continue;
      if (lastKeys[i++] !== key) {
        same = false;
        break;
      }
    }
  }
  if (same && i === lastKeys.length) return lastCopier;
  const keys = Object.keys(item).filter((key) => key !== 'apiVersion' && key !== 'kind');
  const shape = keys.join('\n');
  let copier = copiers.get(shape);
  if (copier === undefined && !copiers.has(shape)) {
    copier = compileCopier(keys);
    if (copiers.size < MAX_SHAPES) copiers.set(shape, copier);
  }
  if (copier !== undefined) {
    lastKeys = keys;
    lastCopier = copier;
  }
  return copier;
}

/**
 * `(o, a, k) => ({ apiVersion: a, kind: k, "key": o["key"], … })` for these keys. Keys are written as JSON string
 * literals, which are JavaScript string literals, so no key can inject code; `__proto__` (which a literal would take
 * as the prototype) and an environment that forbids code generation get no copier.
 */
function compileCopier(keys: readonly string[]): Copier | undefined {
  if (keys.includes('__proto__')) return undefined;
  const fields = keys.map((key) => `${JSON.stringify(key)}: o[${JSON.stringify(key)}]`);
  try {
    return new Function('o', 'a', 'k', `return { apiVersion: a, kind: k, ${fields.join(', ')} };`) as Copier;
  } catch {
    return undefined;
  }
}
