/**
 * Object identity and immutability shared by every layer: cache keys, apiVersion strings and deep-freezing.
 * @packageDocumentation
 */
export { MissingNameError, hasName, keyFor, objectKey } from './keys.js';
export { groupOfApiVersion, isPartialObjectMetadata, joinApiVersion, splitApiVersion } from './api-version.js';
export { deepFreeze, freezeJsonTree } from './freeze.js';
