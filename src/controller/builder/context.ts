/**
 * What a runtime that hosts controllers (the manager) hands each of them, so that `controller()` and hand-written
 * pipelines plug into it the same way.
 */
import type { OperatorFunction, SchedulerLike } from 'rxjs';
import type { InformerFactory } from '../../informer/index.js';
import type { ReconcileLookupOptions, ReconcileOptions } from '../options.js';
import type { ReconcileEvent, ReconcileFn, ReconcileKeyFn, ReconcileTrigger } from '../types.js';

/**
 * `reconcile` with a host's gate, shutdown and instrumentation applied; same overloads as `reconcile`.
 *
 * # Guarantees
 * - The options' own `gate` still applies: runs start only while both it and the host's gate are open.
 * - The options' own `stop$` still applies: either it or the host's shutdown starts the drain.
 * - `scheduler` and `drainTimeout` default to the host's.
 */
export interface ContextReconcile {
  /** `reconcile` with a `lookup`: the reconcile function receives the latest object of its key. */
  <T>(fn: ReconcileFn<T>, options: ReconcileLookupOptions<T>): OperatorFunction<ReconcileTrigger | string, ReconcileEvent>;
  /** `reconcile` without a `lookup`: the reconcile function receives the key only. */
  (fn: ReconcileKeyFn, options?: ReconcileOptions & { readonly lookup?: undefined }): OperatorFunction<ReconcileTrigger | string, ReconcileEvent>;
}

/**
 * The part of a host's context that `controller()` uses (pass it as `controller({ context, … })`): the shared
 * informer factory, the reconcile operator to build with, the scheduler, and where to report what the controller
 * survives.
 *
 * # Guarantees (a host must keep them)
 * - `informers` is shared by every controller of the host: one watch per resource and options.
 * - `reconcile` keeps every guarantee of `reconcile` and adds only the host's gate (for example leadership),
 *   shutdown and instrumentation.
 */
export interface ControllerContext {
  /** The controller's name, unique within its host: the `controller` label of its metrics and logs. */
  readonly name: string;
  /** The host's informer factory, shared by every controller it runs. */
  readonly informers: InformerFactory;
  /** The `reconcile` operator to build with: the host's gate, shutdown and instrumentation added. */
  readonly reconcile: ContextReconcile;
  /** The scheduler every timer of the controller runs on. */
  readonly scheduler: SchedulerLike;
  /** Receives errors the controller survives (an informer in trouble, a sync timeout). */
  readonly reportError: (error: Error) => void;
}
