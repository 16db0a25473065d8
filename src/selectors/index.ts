/** Label and field selectors with Kubernetes semantics, for stores, informers and the in-memory API server. */
export {
  SelectorParseError,
  parseLabelSelector,
  labelSelectorFromObject,
  matchesLabels,
  formatLabelSelector,
} from './labelSelector.js';
export type { LabelRequirement, LabelSelector } from './labelSelector.js';
export {
  parseFieldSelector,
  matchesFields,
  formatFieldSelector,
  escapeFieldValue,
} from './fieldSelector.js';
export type { FieldRequirement, FieldSelector } from './fieldSelector.js';
export { checkSelectors } from './check.js';
export type { SelectorOptions } from './check.js';
export * as selectors from './selectors-namespace.js';
