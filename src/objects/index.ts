/**
 * Object identity shared by every layer: cache keys and apiVersion strings.
 * @packageDocumentation
 */
export { MissingNameError, hasName, keyFor, objectKey } from './keys.js';
export { groupOfApiVersion, joinApiVersion, splitApiVersion } from './api-version.js';
