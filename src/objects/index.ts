/**
 * Object identity and immutability shared by every layer: cache keys, apiVersion strings, deep-freezing, and
 * `ObjectLike`, the shape of an object the helpers accept.
 * @packageDocumentation
 */
export { MissingNameError, hasName, keyFor, objectKey } from './keys.js';
export { groupOfApiVersion, isPartialObjectMetadata, joinApiVersion, splitApiVersion } from './api-version.js';
export { deepFreeze, freezeJsonTree } from './freeze.js';
export type { ObjectLike } from './object-like.js';
