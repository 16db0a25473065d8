/**
 * Owner references: the controller reference, set and checked as controller-runtime does.
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
export * as owners from './owners-namespace.js';
