/**
 * Label and field selector predicates for list and watch, with the real server's errors for bad selectors.
 * @module
 */
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../../selectors/index.js';
import { formatShardSelector, matchesShard, parseShardSelector, type ShardRange } from '../../../sharding/index.js';
import { badRequest, isPlainObject, type KubeObject, reasonless } from '../machinery/index.js';
import type { ResourceInfo } from '../registry/index.js';

/** A compiled selector pair; `matches` is true for every object when both selectors are empty. */
export interface ObjectFilter {
  /** No label or field selector (a shard selector does not count: the real `SelectionPredicate.Empty` skips it). */
  readonly empty: boolean;
  /** The shard selector in the server's normalised form, for `ListMeta.shardInfo`; undefined when not sharded. */
  readonly shard?: string;
  matches(obj: KubeObject): boolean;
}

/**
 * The `shardSelector` parameter parsed as kube-apiserver 1.36.3 does: undefined when absent or empty (the
 * registry skips `""`), HTTP 500 `invalid shard selector: <why>` when malformed (a bare Go error, no reason).
 */
function parseShard(text: string | undefined): ShardRange[] | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return parseShardSelector(text);
  } catch (error) {
    throw reasonless(`invalid shard selector: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function fieldValue(obj: KubeObject, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isPlainObject(cur)) return '';
    cur = cur[part];
  }
  if (cur === undefined || cur === null) return '';
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return '';
}

function selectorError(error: unknown): Error {
  // The selector parser already words its errors like the real one (`unable to parse requirement: ...`).
  return badRequest(error instanceof Error ? error.message : String(error));
}

/** `text` parsed by `parse`, or `undefined` for an absent or blank selector; a parse error is a 400. */
function parseSelector<T>(text: string | undefined, parse: (text: string) => T): T | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof Error) throw selectorError(error);
    throw error;
  }
}

/**
 * Compiles `labelSelector` and `fieldSelector` query parameters for `resource`.
 *
 * # Guarantees
 * - Field labels other than `metadata.name`, `metadata.namespace` and the type's own are a 400 with the real
 *   message: `field label not supported: <label>` for types with their own field labels (pods, events...),
 *   `"<label>" is not a known field selector: only "metadata.name", "metadata.namespace"` for the others.
 *   Unparsable selectors are a 400 too.
 * - `shardSelector` (pass it only when the `ShardedListAndWatch` gate is on) selects by KEP-5866 hash ranges; a
 *   malformed one is a 500 `invalid shard selector: …`. It is checked after the label and field selectors: the
 *   real server parses those while decoding the request, so their 400 wins over the registry's 500.
 */
export function compileFilter(
  resource: ResourceInfo,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
  shardSelector?: string,
): ObjectFilter {
  const l = parseSelector(labelSelector, parseLabelSelector);
  const f = parseSelector(fieldSelector, parseFieldSelector);
  if (f !== undefined) {
    const allowed = new Set(['metadata.name', 'metadata.namespace', ...resource.fieldLabels]);
    for (const requirement of f) {
      if (allowed.has(requirement.field)) continue;
      throw badRequest(
        resource.customFieldLabels
          ? `field label not supported: ${requirement.field}`
          : `${JSON.stringify(requirement.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
  }
  const shard = parseShard(shardSelector);
  return {
    empty: l === undefined && f === undefined,
    ...(shard === undefined ? {} : { shard: formatShardSelector(shard) }),
    matches(obj) {
      if (shard !== undefined && !matchesShard(shard, obj)) return false;
      if (l !== undefined && !matchesLabels(l, obj.metadata.labels ?? {})) return false;
      if (f !== undefined && !matchesFields(f, (field) => fieldValue(obj, resource.fieldLabelMap?.[field] ?? field)))
        return false;
      return true;
    },
  };
}
