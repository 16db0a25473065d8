/**
 * The in-memory Kubernetes API server for tests: real HTTP(S) on 127.0.0.1, kube-apiserver semantics, faults.
 * @module
 */
export { startTestCluster } from './cluster.js';
export type { TestCluster, TestClusterOptions } from './cluster.js';
export type { InMemoryServerOptions, ServerCore, CoreHooks } from './core.js';
export { createServerCore } from './core.js';
export type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink } from './exchange.js';
export { realRuntime, seededRuntime, seededRandom } from './runtime.js';
export type { ServerRuntime } from './runtime.js';
export { storageKey, groupVersion } from './resource.js';
export { cloneJson } from './object.js';
export { atVersion } from './negotiate.js';
export type { Faults, FailNextOptions, ConflictNextOptions, FailWritesOptions } from './faults.js';
export { SeedError } from './seed.js';
export type { SeedOptions } from './seed.js';
export type { StatusBody, StatusCause, StatusDetails } from './status.js';
export type { RequestLog, RequestRecord, RequestVerb } from './request-log.js';
