/**
 * rxkube: Kubernetes controllers as RxJS pipelines.
 *
 * Layers, top to bottom: `transport` (list pages and watch lines over client-node's KubeConfig), `resources`
 * (apiVersion/kind to plural and scope), `watch` (the `listWatch` reflector), `store` (Immer snapshots),
 * `informer` (shared, ref-counted caches), `controller` (triggers, predicates, the `reconcile` operator).
 * This module holds the public exports only.
 * @packageDocumentation
 */
import './runtime/node-version.js';
export * from './selectors/index.js';
export * from './transport/index.js';
export * from './resources/index.js';
export * from './watch/index.js';
export * from './store/index.js';
export * from './informer/index.js';
export * from './controller/index.js';
export * from './controller/triggers/index.js';
export * from './controller/predicates/index.js';
export * from './controller/builder/index.js';
