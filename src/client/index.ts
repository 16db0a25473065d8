/**
 * The write path: a typed resource client as cold Observables, Immer recipes sent as guarded JSON Patches with
 * conflict retry, server-side apply, owner references and finalizers.
 * @packageDocumentation
 */
export {
  APPLY_PATCH,
  ClientScopeError,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RETRY,
  resourceClient,
  withSignal,
} from './resource/index.js';
export type {
  CallOptions,
  ClientWrite,
  ClientWriteOutcome,
  FieldValidation,
  PropagationPolicy,
  ResourceClient,
  WriteObserver,
  WriteVerb,
} from './resource/index.js';
export { compareResourceVersions } from './mutate/index.js';
export { escapePointerToken, jsonPointer, recipeChanges } from './patch/index.js';
export type { JsonPatchOperation, Recipe, RecipeChanges } from './patch/index.js';
export {
  AlreadyOwnedError,
  OwnerReferenceError,
  controllerOf,
  controllerReference,
  isControlledBy,
  setControllerReference,
} from './owners/index.js';
export type { Owner } from './owners/index.js';
export { owners } from './owners/index.js';
export { FinalizerNameError, finalizer } from './finalizer/index.js';
export {
  CONDITION_MESSAGE_LIMIT,
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions/index.js';
export type {
  Condition,
  ConditionHolder,
  ConditionStatus,
  ConditionUpdate,
  SetStatusConditionOptions,
} from './conditions/index.js';
export { conditions } from './conditions/index.js';
export type { FinalizerHandler, FinalizerHandlers, FinalizerRequest } from './finalizer/index.js';
export * from './events/index.js';
