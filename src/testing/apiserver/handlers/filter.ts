/**
 * Label and field selector predicates for list and watch, with the real server's errors for bad selectors.
 * @module
 */
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../../selectors/index.js';
import { badRequest, isPlainObject, type KubeObject } from '../machinery/index.js';
import type { ResourceInfo } from '../registry/index.js';

/** A compiled selector pair; `matches` is true for every object when both selectors are empty. */
export interface ObjectFilter {
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
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
 */
export function compileFilter(
  resource: ResourceInfo,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
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
  return {
    empty: l === undefined && f === undefined,
    matches(obj) {
      if (l !== undefined && !matchesLabels(l, obj.metadata.labels ?? {})) return false;
      if (f !== undefined && !matchesFields(f, (field) => fieldValue(obj, resource.fieldLabelMap?.[field] ?? field)))
        return false;
      return true;
    },
  };
}
