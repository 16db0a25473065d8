/**
 * Read-your-own-writes for a pipeline written by hand (`controller()` does all of it by itself, with a `context`):
 * `ownWrites.readYourWrites(writes, reads)` is the `readiness` hook of `reconcile` with which the next run of a key
 * starts only once its caches show what the key's last runs wrote; `ownWrites.ignore(writes, resource)` drops the
 * watch events that only echo such a write; `ownWrites.ledger()` is the ledger both read, for a client built
 * without a context (a context has one: `context.writes`, fed by `context.client()`).
 *
 * @example
 * ```ts
 * import { ownWrites, reconcile, toKeys } from 'rxkube';
 *
 * const readiness = ownWrites.readYourWrites(context.writes, [{ resource: CONFIG_MAP, informer: configs }], {
 *   primary: CONFIG_MAP,
 * });
 * configs.events$.pipe(ownWrites.ignore(context.writes, CONFIG_MAP), toKeys(), reconcile(fn, { readiness }));
 * ```
 * @packageDocumentation
 */
export { OwnWrites, ownWriteLedger as ledger } from './ledger.js';
export { readYourWrites } from './read-your-writes.js';
export { ignoreOwnWrites as ignore } from './ignore-own-writes.js';
export type { OwnWrite, OwnWritesOptions, ReadCache, ReadSource, ReadYourWritesOptions } from './types.js';
