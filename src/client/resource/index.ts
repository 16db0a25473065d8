/**
 * The typed resource client: get, list, create, replace, patch, apply, delete and the status subresource, as cold
 * Observables through the transport seam.
 * @packageDocumentation
 */
export { resourceClient, APPLY_PATCH } from './resource-client.js';
export type { ResourceClient } from './client.js';
export { ClientScopeError } from './target.js';
export { withSignal } from './abortable.js';
export { DEFAULT_RETRY } from './options.js';
export type { ClientWrite, ClientWriteOutcome, WriteObserver, WriteVerb } from './write-observer.js';
export { DEFAULT_PAGE_SIZE } from './pages.js';
export type { CallOptions, FieldValidation, PropagationPolicy } from './options.js';
