/**
 * Finalizers: cleanup before deletion, as kube-rs's `finalizer()` runs it.
 * @packageDocumentation
 */
export { FinalizerNameError, finalizer } from './finalizer.js';
export type { FinalizerHandler, FinalizerHandlers, FinalizerRequest } from './finalizer.js';
