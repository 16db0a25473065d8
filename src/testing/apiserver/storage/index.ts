/**
 * Where objects live: the versioned object store (one resourceVersion counter, per-resource maps, the history ring
 * that serves watch resumption and paginated lists), and the `ServerState` that handlers, the write path and the
 * built-in controllers share.
 * @module
 */
export { crdStorageKey, mustGet, namespaceResource, namespaceStorageKey } from './state.js';
export type { FeatureGates, RequestTarget, ServerState } from './state.js';
export { knownFeatureGates } from './state.js';
export { ObjectStore } from './store.js';
export type { Snapshot, StoredEvent } from './store.js';
