/**
 * The controllers the in-memory server runs in process because the real control plane would: the
 * apiextensions-apiserver's CRD lifecycle and, opt-in, the namespace controller and the garbage collector. They
 * listen to committed store events and write to the store directly.
 * @module
 */
export { ownerGarbageCollector } from './garbage-collector.js';
export { crdController, namespaceController } from './lifecycle.js';
