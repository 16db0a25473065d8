/** Label and field selectors with Kubernetes semantics, for stores, informers and the in-memory API server. */
export {
  SelectorParseError,
  parseLabelSelector,
  labelSelectorFromObject,
  matchesLabels,
  formatLabelSelector,
} from './label-selector.js';
export type { LabelRequirement, LabelSelector } from './label-selector.js';
export {
  parseFieldSelector,
  matchesFields,
  formatFieldSelector,
  escapeFieldValue,
} from './field-selector.js';
export type { FieldRequirement, FieldSelector } from './field-selector.js';
export { checkSelectors } from './check.js';
export type { SelectorOptions } from './check.js';
export * as selectors from './selectors-namespace.js';
