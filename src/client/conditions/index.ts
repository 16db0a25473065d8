/**
 * Status conditions kept as apimachinery's `meta.SetStatusCondition` and its kin keep them.
 * @packageDocumentation
 */
export {
  CONDITION_MESSAGE_LIMIT,
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions.js';
export type {
  Condition,
  ConditionHolder,
  ConditionStatus,
  ConditionUpdate,
  SetStatusConditionOptions,
} from './conditions.js';
export * as conditions from './conditions-namespace.js';
