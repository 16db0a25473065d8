/**
 * From an exchange to a handler: the node:http adapter, the request entry point (request log, authentication,
 * the fault endpoint and injected faults, non-resource paths), the resource router, and body decoding and response
 * writing.
 * @module
 */
export { FaultState, badLines } from './faults.js';
export type { ConflictNextOptions, FailNextOptions, FailWritesOptions, Faults } from './faults.js';
export { createHandler } from './node-adapter.js';
export { requestLog } from './request-log.js';
export type { RequestLog, RequestRecord, RequestVerb } from './request-log.js';
export type { ServingState } from './router.js';
export { serveRequest } from './serve-request.js';
