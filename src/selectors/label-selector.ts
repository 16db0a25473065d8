/** Kubernetes label selectors: parse, build from `V1LabelSelector`, match, format (k8s.io/apimachinery `labels`). */
import { SelectorParseError } from './errors.js';
import { parseLabelRequirements } from './label-parser.js';
import { byKey, requirementErrors, type GoOperator } from './requirement.js';
import { aggregate } from './validation.js';

export { SelectorParseError } from './errors.js';

/**
 * One clause of a label selector. `a=b` and `a==b` are `In [b]`; `a!=b` is `NotIn [b]`.
 *
 * # Caveats
 * - Kubernetes' `Gt`/`Lt` (`a>1`) operators are not representable; parsing them throws `SelectorParseError`.
 */
export type LabelRequirement =
  | {
      /** The label key. */
      readonly key: string;
      /** `In` (`key=v`, `key in (a,b)`) or `NotIn` (`key!=v`, `key notin (a,b)`). */
      readonly operator: 'In' | 'NotIn';
      /** The values the label is compared with. */
      readonly values: readonly string[];
    }
  | {
      /** The label key. */
      readonly key: string;
      /** `Exists` (`key`) or `DoesNotExist` (`!key`). */
      readonly operator: 'Exists' | 'DoesNotExist';
    };

/** AND of requirements; empty selector matches everything. */
export type LabelSelector = readonly LabelRequirement[];

/**
 * Parses label selector text such as `a=b,c!=d,e in (x,y),f notin (z),g,!h` (`==` too).
 *
 * # Guarantees
 * - Same grammar and whitespace tolerance (space, tab, CR, LF) as `labels.Parse`; `""` (or only whitespace)
 *   is the empty selector, which matches everything.
 * - Keys are validated as qualified names (`[DNS-subdomain/]name`, name ≤ 63 chars) and values as label values
 *   (≤ 63 chars, `[A-Za-z0-9_.-]`, alphanumeric at both ends, or empty); the error message is Go's, e.g.
 *   `unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of ...`.
 * - The result is sorted by key (stable), and each `In`/`NotIn` value list is sorted and de-duplicated, so equal
 *   selectors parse to deep-equal arrays.
 *
 * # Caveats
 * - `a>1` / `a<1` are valid in Kubernetes but rejected here (see `LabelRequirement`).
 * - `x in ()` is `In [""]`, exactly as in Go.
 */
export function parseLabelSelector(text: string): LabelSelector {
  return parseLabelRequirements(text);
}

const OBJECT_OPERATORS: Readonly<Record<string, GoOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a `V1LabelSelector` the way `metav1.LabelSelectorAsSelector` does.
 *
 * # Guarantees
 * - `matchLabels` entries become `In [value]`; `matchExpressions` keep their operator. The result is sorted by key.
 * - A selector with neither field (or empty ones) is the empty selector: it matches everything.
 * - An unknown operator throws `"Foo" is not a valid label selector operator`; invalid keys/values and wrong
 *   value counts throw Go's `NewRequirement` field errors (e.g. `values: Invalid value: []string(nil): for 'in',
 *   'notin' operators, values set can't be empty`).
 *
 * # Caveats
 * - Go returns `labels.Nothing()` for a nil `*LabelSelector`; that case is the caller's (pass no selector at all).
 */
export function labelSelectorFromObject(sel: {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}): LabelSelector {
  const input = JSON.stringify(sel) ?? String(sel);
  const fail = (message: string): never => {
    throw new SelectorParseError(message, input);
  };
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    if (typeof value !== 'string')
      fail(`matchLabels[${JSON.stringify(key)}] must be a string, got ${JSON.stringify(value)}`);
    const errs = requirementErrors(key, '=', [value]);
    if (errs.length > 0) fail(aggregate(errs));
    out.push({ key, operator: 'In', values: [value] });
  }
  for (const expr of sel.matchExpressions ?? []) {
    const op = Object.hasOwn(OBJECT_OPERATORS, expr.operator) ? OBJECT_OPERATORS[expr.operator] : undefined;
    if (op === undefined) return fail(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    const values = expr.values === undefined || expr.values === null ? undefined : [...expr.values];
    const errs = requirementErrors(expr.key, op, values);
    if (errs.length > 0) fail(aggregate(errs));
    if (op === 'in' || op === 'notin') {
      out.push({ key: expr.key, operator: op === 'in' ? 'In' : 'NotIn', values: uniqueSorted(values ?? []) });
    } else {
      out.push({ key: expr.key, operator: op === 'exists' ? 'Exists' : 'DoesNotExist' });
    }
  }
  return out.sort(byKey);
}

/**
 * True when every requirement holds for `labels` (an absent `labels` is the empty map).
 *
 * # Guarantees
 * - Kubernetes semantics: `In` needs the key present with a listed value; `NotIn` matches when the key is absent
 *   or its value is unlisted; `Exists`/`DoesNotExist` test presence only. The empty selector matches everything.
 * - Only own properties count as labels (a label named `constructor` or `__proto__` behaves like any other).
 */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = (key: string): boolean => labels !== undefined && Object.hasOwn(labels, key);
  return selector.every((r) => {
    switch (r.operator) {
      case 'In':
        return has(r.key) && r.values.includes(labels![r.key]!);
      case 'NotIn':
        return !has(r.key) || !r.values.includes(labels![r.key]!);
      case 'Exists':
        return has(r.key);
      case 'DoesNotExist':
        return !has(r.key);
    }
  });
}

/**
 * Canonical selector text: requirements in the given order, single-value `In`/`NotIn` as `k=v`/`k!=v`,
 * multi-value ones as `k in (a,b)` with sorted values.
 *
 * # Guarantees
 * - `parseLabelSelector(formatLabelSelector(s))` deep-equals `s` for every `s` returned by
 *   `parseLabelSelector` or `labelSelectorFromObject`.
 *
 * # Caveats
 * - `In`/`NotIn` with no values cannot be written (Kubernetes rejects them); that throws `SelectorParseError`.
 *   Keys and values are not re-validated: a hand-built invalid selector formats to text that will not parse.
 */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector
    .map((r) => {
      switch (r.operator) {
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
        case 'In':
        case 'NotIn': {
          const values = uniqueSorted(r.values);
          if (values.length === 0) {
            throw new SelectorParseError(
              `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`,
              r.key,
            );
          }
          if (values.length === 1) return `${r.key}${r.operator === 'In' ? '=' : '!='}${values[0]}`;
          return `${r.key} ${r.operator === 'In' ? 'in' : 'notin'} (${values.join(',')})`;
        }
      }
    })
    .join(',');
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
