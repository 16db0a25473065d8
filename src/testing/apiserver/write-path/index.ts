/**
 * What every write goes through between a decoded body and the store: unknown-field validation, the field
 * manager's scope and tracking, the admission of a create, and the commit of an update. `seed`/`update` enter it
 * directly, without HTTP.
 * @module
 */
export { admitCreate } from './admit.js';
export { commitUpdate, present, updateAt } from './commit.js';
export type { Reply } from './commit.js';
export { fieldScope, tracker } from './field-manager.js';
export { checkFields, fieldValidation } from './field-validation.js';
export type { FieldValidation } from './field-validation.js';
export { SeedError, seedObjects, updateObjects } from './seed.js';
export type { SeedOptions } from './seed.js';
