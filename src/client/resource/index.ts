/**
 * The typed resource client: get, list, create, replace, patch, apply, delete and the status subresource, as cold
 * Observables through the transport seam.
 * @packageDocumentation
 */
export { resourceClient, APPLY_PATCH } from './resource-client.js';
export type { ResourceClient } from './client.js';
export { ClientScopeError } from './target.js';
export { applyConflicts } from './apply-conflicts.js';
export type { ApplyConflict } from './apply-conflicts.js';
export { withSignal } from './abortable.js';
export { DEFAULT_RETRY } from './options.js';
export type { ClientWrite, ClientWriteOutcome, WriteObserver, WriteVerb } from './write-observer.js';
export { DEFAULT_PAGE_SIZE } from './pages.js';
export type {
  ApplyOptions, CallOptions, ClientListOptions, DeleteCollectionOptions, DeleteOptions, FieldValidation, GetOptions, MutateOptions,
  ObjectList, ObjectRef, PartialObject, Patch, PropagationPolicy, ResourceClientOptions, RetryPolicy, StatusObject, StoreSource,
  WriteOptions,
} from './options.js';
