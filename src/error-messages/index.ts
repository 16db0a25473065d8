/**
 * Describing arbitrary values, thrown or returned by user code, in error messages: never throwing while doing it.
 * @packageDocumentation
 */
export { describeValue, messageOf } from './describe.js';
