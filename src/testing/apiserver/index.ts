/**
 * The in-memory Kubernetes API server for tests: real HTTP(S) on 127.0.0.1, kube-apiserver semantics, faults.
 * @module
 */
export { startTestCluster } from './cluster.js';
export type { TestCluster, TestClusterOptions } from './cluster.js';
export type { InMemoryServerOptions, ServerCore, CoreHooks } from './core.js';
export type { FeatureGates } from './storage/index.js';
export { createServerCore } from './core.js';
export type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink } from './machinery/index.js';
export { realRuntime, seededRuntime, seededRandom } from './machinery/index.js';
export type { ServerRuntime } from './machinery/index.js';
export { storageKey, groupVersion } from './registry/index.js';
export { cloneJson, warningHeaders } from './machinery/index.js';
export { atVersion } from './representation/index.js';
export type { Faults, FailNextOptions, ConflictNextOptions, FailWritesOptions } from './serving/index.js';
export { SeedError } from './write-path/index.js';
export type { SeedOptions } from './write-path/index.js';
export type { StatusBody, StatusCause, StatusDetails } from './machinery/index.js';
export type { RequestLog, RequestRecord, RequestVerb } from './serving/index.js';
