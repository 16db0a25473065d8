/**
 * Label and field selectors with Kubernetes' semantics, as apimachinery's `labels` and `fields` packages have them:
 * parse selector text (`selectors.parseLabelSelector('app=web,tier!=db')`), convert a `V1LabelSelector`
 * (`selectors.labelSelectorFromObject`), match a selector against labels or fields, and write it back as text.
 * Errors carry the message kube-apiserver gives for the same input (`selectors.SelectorParseError`).
 *
 * Informers, the resource client and `controller()` take selectors as text, and `Store.list` takes text or a parsed
 * `selectors.LabelSelector`; these helpers build, parse and test them.
 * @packageDocumentation
 */
export {
  SelectorParseError,
  formatLabelSelector,
  labelSelectorFromObject,
  matchesLabels,
  parseLabelSelector,
} from './label-selector.js';
export type { LabelRequirement, LabelSelector } from './label-selector.js';
export { escapeFieldValue, formatFieldSelector, matchesFields, parseFieldSelector } from './field-selector.js';
export type { FieldRequirement, FieldSelector } from './field-selector.js';
