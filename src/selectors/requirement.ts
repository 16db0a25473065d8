/** `labels.NewRequirement` validation, shared by the text parser and `labelSelectorFromObject`. */
import { fieldInvalid, goStringSlice, labelValueErrors, qualifiedNameErrors } from './validation.js';

/** Operator spellings of k8s.io/apimachinery `selection.Operator`. */
export type GoOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** `validateLabelKey(key, path)`: one field error, or undefined when the key is valid. */
export function labelKeyError(key: string, path: string | null): string | undefined {
  const errs = qualifiedNameErrors(key);
  return errs.length === 0 ? undefined : fieldInvalid(path, JSON.stringify(key), errs.join('; '));
}

/**
 * Every error `labels.NewRequirement(key, op, values)` reports, in Go's order (key, operator arity, values).
 * `values === undefined` stands for Go's nil slice, which only changes how an arity error prints.
 */
export function requirementErrors(key: string, op: GoOperator, values: readonly string[] | undefined): string[] {
  const errs: string[] = [];
  const keyErr = labelKeyError(key, 'key');
  if (keyErr !== undefined) errs.push(keyErr);
  const vals = values ?? [];
  const shown = goStringSlice(values);
  switch (op) {
    case 'in':
    case 'notin':
      if (vals.length === 0)
        errs.push(fieldInvalid('values', shown, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1)
        errs.push(fieldInvalid('values', shown, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0)
        errs.push(fieldInvalid('values', shown, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1)
        errs.push(fieldInvalid('values', shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) {
          errs.push(
            fieldInvalid(`values[${i}]`, JSON.stringify(v), "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
        }
      });
      break;
  }
  vals.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(fieldInvalid(`values[${i}][${key}]`, JSON.stringify(v), valueErrs.join('; ')));
  });
  return errs;
}

/** Stable order by key, the order `labels.Parse` and `LabelSelectorAsSelector` return requirements in. */
export function byKey(a: { readonly key: string }, b: { readonly key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
