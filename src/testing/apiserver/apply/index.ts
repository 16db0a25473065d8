/**
 * Server-side apply and managed fields for the in-memory API server: field sets, merge schemas (built-in kinds
 * from Kubernetes' OpenAPI, custom resources from their CRD), and kube-apiserver's field manager.
 * @module
 */
export { applyObject, conflictError, trackWrite } from './fieldmanager.js';
export type { FieldManagerScope } from './fieldmanager.js';
export { FieldSet } from './fieldset.js';
export { builtinTypes, customResourceTypes, resetFields, versionedTypes } from './types.js';
export type { ResetRule } from './types.js';
export { deducedSchema } from './schema.js';
export { undeclaredFields } from './typed/fieldset.js';
export type { TypedSchema } from './schema.js';
export type { Json } from './value.js';
export { managerFromUserAgent, parseApplyBody, writeOptions } from './request.js';
export type { WriteOptions } from './request.js';
