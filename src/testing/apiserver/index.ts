/**
 * The in-memory Kubernetes API server for tests: real HTTP(S) on 127.0.0.1, kube-apiserver semantics, faults.
 * @module
 */
export { startTestCluster } from './cluster.js';
export type { TestCluster, TestClusterOptions } from './cluster.js';
export type { Faults, FailNextOptions } from './faults.js';
export { SeedError } from './seed.js';
export type { SeedOptions } from './seed.js';
export type { StatusBody, StatusCause, StatusDetails } from './status.js';
