/**
 * rxkube/testing: an in-memory Kubernetes API server, the real control-plane launcher, and marble helpers.
 * @packageDocumentation
 */
export {};
