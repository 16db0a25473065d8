/** Contract-suite support: target selection, raw HTTP through the KubeConfig, watch helpers. */
export { contractTargets, overHttpOnly, suffix, useContractSession } from './target.js';
export type { ContractSession, ContractTarget } from './target.js';
export { openWatch, rawRequest, summary, watchOver } from './raw.js';
export type { OpenWatch, RawRequestOptions, RawResponse, WatchEventLine, WatchStreamHandlers } from './raw.js';
export { corePath, isNamed, useConfigMapWatches } from './watches.js';
export type { ConfigMapWatches } from './watches.js';
export { apply, APPLY, entry, entryOf, expectStatus, managedFields, MERGE } from './apply.js';
export type { ApplyOptions, Entry } from './apply.js';
export { expectItemsAsRead } from './lists.js';
export type { ItemsAsReadOptions } from './lists.js';
