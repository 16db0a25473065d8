/**
 * Field validation of writes (`fieldValidation=Ignore|Warn|Strict`): what kube-apiserver's strict decoders do with
 * fields the kind's schema does not declare, on create, update and merge/JSON/strategic-merge patches.
 *
 * Unknown fields are found by the typed schema the field manager uses (`apply/`: the built-in models, or the CRD's
 * `openAPIV3Schema` with `x-kubernetes-preserve-unknown-fields`), so both features agree on what a field is.
 * @module
 */
import { undeclaredFields, type Json } from '../apply/index.js';
import { fieldScope } from './field-manager.js';
import { ApiError, badRequest, fieldInvalid, isPlainObject, type KubeObject } from '../machinery/index.js';
import { groupVersion } from '../registry/index.js';
import type { RequestTarget, ServerState } from '../storage/index.js';

/** A `fieldValidation` directive; `Warn` when the query has none. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The options kind the directive is validated as, which names it in the 422. */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const directives = ['Ignore', 'Strict', 'Warn'];

/**
 * The request's `fieldValidation` directive.
 *
 * # Guarantees
 * - Absent or empty is `Warn`, as in kube-apiserver 1.36. Any other value (the check is case-sensitive) is the
 *   real 422 `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: …`.
 */
export function fieldValidation(query: URLSearchParams, options: WriteOptionsKind): FieldValidation {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (directives.includes(value)) return value as FieldValidation;
  const message = `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`;
  throw new ApiError(422, 'Invalid', `${options}.meta.k8s.io "" is invalid: fieldValidation: ${message}`, {
    group: 'meta.k8s.io',
    kind: options,
    causes: [{ reason: 'FieldValueNotSupported', message, field: 'fieldValidation' }],
  });
}

/** What a write body may carry besides its fields: how a patch reached it (for the 422 of a strict patch). */
export type FieldSource =
  | { readonly kind: 'body' }
  | { readonly kind: 'patch'; readonly type: string; readonly patch: unknown };

/**
 * Removes from `obj` (a create or update body, or a patched object, at the request's version) every field its
 * kind's schema does not declare, and answers as `mode` asks.
 *
 * # Guarantees
 * - `Ignore`: the fields are dropped, nothing is said. `Warn`: dropped, and the returned warnings are
 *   `unknown field "<path>"` (paths like `spec.template.spec.containers[0].colour`), one per field, in the real
 *   server's order: document order for built-in kinds, `metadata` first and then sorted for custom resources and
 *   strategic merge patches. `Strict`: nothing is dropped and an `ApiError` is thrown: a body is the 400
 *   `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: …`; a patch is the 422
 *   `"" is invalid: patch: Invalid value: "<patched object>": strict decoding error: …` (the strategic merge patch
 *   shows the patch itself, as Go prints a map).
 * - A kind without a schema (neither built-in nor CRD-typed) keeps every field.
 * # Caveats
 * - Duplicate JSON keys are not reported (`JSON.parse` keeps the last one, as the real server stores it).
 */
export function checkFields(
  state: ServerState,
  target: RequestTarget,
  obj: KubeObject,
  mode: FieldValidation,
  source: FieldSource,
): readonly string[] {
  const gv = groupVersion(target.resource.group, target.version);
  const typed = fieldScope(state, target).types.at(gv);
  if (typed === undefined) return [];
  const smp = source.kind === 'patch' && source.type === 'application/strategic-merge-patch+json';
  // The strict decoder reads the document the patch library wrote, whose key order is not the stored one.
  const document =
    source.kind === 'patch' && !smp
      ? patchedOrder(
          obj,
          target.resource.custom
            ? true
            : source.type === 'application/merge-patch+json'
              ? source.patch
              : jsonPatchTree(source.patch),
        )
      : obj;
  const paths = undeclaredFields(typed, document as Json);
  if (paths.length === 0) return [];
  const names = paths.map(goPath);
  const ordered = target.resource.custom ? customResourceOrder(names) : smp ? [...names].sort() : names;
  const problems = ordered.map((name) => `unknown field ${JSON.stringify(name)}`);
  if (mode === 'Strict') throw strictError(target, document, source, problems);
  for (const path of paths) drop(obj, path);
  return mode === 'Warn' ? problems : [];
}

/** `spec.containers[0].colour`: the path printed as the Go decoders print it. */
function goPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const step of path) text += typeof step === 'number' ? `[${step}]` : text === '' ? step : `.${step}`;
  return text;
}

/** Custom resources: ObjectMeta's decoder reports first, then the pruning, which sorts what it pruned. */
function customResourceOrder(names: readonly string[]): string[] {
  const meta = names.filter((n) => n.startsWith('metadata.'));
  const rest = names.filter((n) => !n.startsWith('metadata.')).sort();
  return [...meta, ...rest];
}

function drop(obj: KubeObject, path: readonly (string | number)[]): void {
  let node: unknown = obj;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[step];
  delete (node as Record<string, unknown>)[path[path.length - 1] as string];
}

function strictError(
  target: RequestTarget,
  document: unknown,
  source: FieldSource,
  problems: readonly string[],
): ApiError {
  const why = `strict decoding error: ${problems.join(', ')}`;
  if (source.kind === 'body') {
    const kind = target.resource.kind;
    return badRequest(`${kind} in version ${JSON.stringify(target.version)} cannot be handled as a ${kind}: ${why}`);
  }
  const shown =
    source.type === 'application/strategic-merge-patch+json' ? goValue(source.patch) : JSON.stringify(document);
  const cause = fieldInvalid('patch', shown, why);
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${cause.message}`, {
    causes: [{ reason: cause.reason, message: cause.message, field: cause.field }],
  });
}

/**
 * The patched object with its keys in the order kube-apiserver's patch library writes them: the objects a patch
 * went through (`touched`, a tree shaped like the object) are re-encoded with sorted keys, the rest keeps the
 * stored order. `true` touches everything: custom resources are unstructured maps, which Go encodes sorted.
 */
function patchedOrder(value: unknown, touched: unknown): unknown {
  if (Array.isArray(value)) {
    if (touched !== true && !Array.isArray(touched) && !isPlainObject(touched)) return value;
    return value.map((item, i) =>
      patchedOrder(
        item,
        touched === true ? true : Array.isArray(touched) ? touched[i] : (touched as Record<string, unknown>)[String(i)],
      ),
    );
  }
  if (!isPlainObject(value) || (touched !== true && !isPlainObject(touched))) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    out[key] =
      touched === true
        ? patchedOrder(value[key], true)
        : Object.hasOwn(touched, key)
          ? patchedOrder(value[key], touched[key])
          : value[key];
  }
  return out;
}

/** The containers a JSON patch walks, as a tree of `true` leaves under the keys of its paths. */
function jsonPatchTree(patch: unknown): Record<string, unknown> {
  const tree: Record<string, unknown> = {};
  if (!Array.isArray(patch)) return tree;
  for (const op of patch) {
    if (!isPlainObject(op)) continue;
    for (const pointer of [op['path'], op['from']]) {
      if (typeof pointer !== 'string' || pointer === '') continue;
      const steps = pointer
        .split('/')
        .slice(1, -1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      let node = tree;
      for (const step of steps) {
        if (!isPlainObject(node[step])) node[step] = {};
        node = node[step] as Record<string, unknown>;
      }
    }
  }
  return tree;
}

/** A decoded JSON value as Go's `%+v` prints it (`map[a:1 b:[x y]]`). */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isPlainObject(value))
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goValue(value[k])}`)
      .join(' ')}]`;
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

/** Integers as int64 (the strict decoder keeps them), other numbers as Go's shortest `%v` of a float64. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}
