/**
 * Status conditions (`metav1.Condition`), kept as apimachinery's `meta` package keeps them: `conditions.set` is
 * `meta.SetStatusCondition`, `conditions.find` is `meta.FindStatusCondition`, `conditions.isTrue` is
 * `meta.IsStatusConditionTrue`, and so on. Each works in place, on a plain object and on an Immer draft alike.
 *
 * @example
 * ```ts
 * import { conditions } from 'rxkube';
 *
 * client.mutate(website, (draft) => {
 *   conditions.set(draft.status ??= {}, { type: 'Ready', status: 'True', reason: 'Available' }, { scheduler });
 * });
 * if (conditions.isTrue(website.status?.conditions, 'Ready')) { … }
 * ```
 * @packageDocumentation
 */
export {
  conditionTime as time,
  findStatusCondition as find,
  isStatusConditionFalse as isFalse,
  isStatusConditionPresentAndEqual as isPresentAndEqual,
  isStatusConditionTrue as isTrue,
  removeStatusCondition as remove,
  setStatusCondition as set,
} from './conditions.js';
export type { Condition, ConditionHolder, ConditionStatus, ConditionUpdate } from './conditions.js';
