/**
 * Backoff arithmetic: exponential ceilings and jitter, as pure functions.
 * @packageDocumentation
 */
export { backoffCeiling, fullJitter, proportionalJitter } from './backoff.js';
export type { BackoffPolicy } from './backoff.js';
