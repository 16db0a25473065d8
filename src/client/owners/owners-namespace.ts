/**
 * Owner references, as controller-runtime's `controllerutil` and apimachinery's `metav1` handle them:
 * `owners.setControllerReference(object, owner)` makes `object` a dependent its owner controls (for garbage
 * collection, and for `toOwnerKeys`), `owners.controllerOf(object)` reads that reference and
 * `owners.isControlledBy(object, owner)` tests it. Refusals are `owners.AlreadyOwnedError` (another controller
 * has the object) and `owners.OwnerReferenceError` (an owner or object that cannot be one).
 * @packageDocumentation
 */
export {
  AlreadyOwnedError,
  OwnerReferenceError,
  controllerOf,
  controllerReference,
  isControlledBy,
  setControllerReference,
} from './owner-references.js';
export type { Owner } from './owner-references.js';
