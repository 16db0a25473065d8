/**
 * The context each controller of a manager is built with.
 */
import { combineLatest, distinctUntilChanged, map, merge, of, type Observable, type SchedulerLike } from 'rxjs';
import type { EventRecorder } from '../client/events/index.js';
import { InformerHealthError, type ContextReconcile } from '../controller/builder/index.js';
import { reconcile, type Lookup, type ReconcileFn, type ReconcileOptions, type ReconcileTrigger } from '../controller/index.js';
import type { InformerFactory } from '../informer/index.js';
import type { Connection, WarningHandler } from '../transport/index.js';
import type { ManagerLogger } from './logging/index.js';
import type { ControllerMetrics } from './metrics/index.js';
import type { ManagerContext } from './types.js';

/** What the manager shares between the contexts of its controllers. */
export interface SharedContext {
  readonly connection: Connection;
  readonly informers: InformerFactory;
  readonly scheduler: SchedulerLike;
  readonly leader$: Observable<boolean>;
  readonly stop$: Observable<void>;
  readonly drainTimeout: number;
  readonly recorder: EventRecorder | undefined;
  readonly onWarning: WarningHandler;
}

/**
 * The context of controller `name`: the shared parts, its gate, its logger, and a `reconcile` that applies the
 * gate, the manager's shutdown and scheduler, and feeds `metrics` with its triggers and concurrency.
 */
export function controllerContext(
  shared: SharedContext, name: string, needsLeadership: boolean, logger: ManagerLogger, metrics: ControllerMetrics | undefined,
): ManagerContext {
  const gate: Observable<boolean> = needsLeadership ? shared.leader$ : of(true);
  const wrapped = <T>(fn: ReconcileFn<T>, options: ReconcileOptions & { readonly lookup?: Lookup<T> }) => {
    const operator = reconcile<T>(fn, {
      ...options,
      lookup: options.lookup as Lookup<T>,
      gate: options.gate === undefined ? gate : both(gate, options.gate),
      stop$: options.stop$ === undefined ? shared.stop$ : merge(shared.stop$, options.stop$),
      scheduler: options.scheduler ?? shared.scheduler,
      drainTimeout: options.drainTimeout ?? shared.drainTimeout,
    });
    metrics?.concurrency(options.concurrency ?? 1);
    return (source: Observable<ReconcileTrigger | string>) =>
      operator(metrics === undefined ? source : source.pipe(map((trigger) => {
        metrics.trigger(trigger);
        return trigger;
      })));
  };
  return {
    ...shared,
    name,
    gate,
    logger,
    reconcile: wrapped as ContextReconcile,
    reportError: (error) => {
      // The manager logs every informer's status changes itself; the builder's copy of them would be noise.
      if (error instanceof InformerHealthError) logger.debug({ error }, 'controller error');
      else logger.warn({ error }, 'controller error');
    },
  };
}

/** Open while both are open; closed until both have said. */
function both(a: Observable<boolean>, b: Observable<boolean>): Observable<boolean> {
  return combineLatest([a, b]).pipe(map(([x, y]) => x === true && y === true), distinctUntilChanged());
}
