/**
 * The store: immutable, deep-frozen, structurally shared cache snapshots, and the Immer reducer that produces them
 * from reflector deltas.
 */
export { Store, NAMESPACE_INDEX, type ListOptions } from './store.js';
export {
  applyWatchBatch,
  applyWatchEvents,
  forEachChange,
  initialStoreState,
  type ExactStoreStep,
  type StoreState,
  type StoreStep,
} from './apply-watch-events.js';
export {
  isBatch,
  reduceStore,
  storeReducer,
  type ReduceStoreOptions,
  type StoreReducer,
  type StoreUpdate,
} from './reduce-store.js';
export type { Indexer, Indexers, StoreOptions, StoreChange, StoreProblem } from './types.js';
export { diffStores, editStore, emptySyncedStore, type StoreEditor } from './edit.js';
export { StoreLog } from './store-log.js';
export type { IndexFailure } from './writes.js';
