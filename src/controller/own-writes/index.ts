/**
 * Read-your-own-writes: the ledger of a controller's writes (`ownWriteLedger`), the `readiness` hook that makes the
 * next run of a key wait for its caches to show them (`readYourWrites`), and the filter that drops their echoes
 * (`ignoreOwnWrites`). Public as the `ownWrites` namespace; the rules they follow (`cacheShows`, `echoOf`) are on
 * `rxkube/extend`.
 * @packageDocumentation
 */
export { DEFAULT_OWN_WRITES_RETAIN_MS, OwnWrites, kindOf, ownWriteLedger } from './ledger.js';
export { DEFAULT_READ_YOUR_WRITES_WAIT_MS, readYourWrites } from './read-your-writes.js';
export { cacheShows } from './cache-shows.js';
export { echoOf } from './echo.js';
export { ignoreOwnWrites } from './ignore-own-writes.js';
export type { OwnWrite, OwnWritesOptions, ReadCache, ReadSource, ReadYourWritesOptions } from './types.js';
export * as ownWrites from './own-writes-namespace.js';
