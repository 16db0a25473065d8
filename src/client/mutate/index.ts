/**
 * `mutate`: Immer recipes sent as guarded JSON Patches, with client-go's conflict retry.
 * @packageDocumentation
 */
export { mutate } from './mutate.js';
export type { MutateContext } from './mutate.js';
export { compareResourceVersions } from './resource-version.js';
export { retryDelay } from './retry.js';
export { conflictKind, staleObjectConflict } from './conflict.js';
