/**
 * The context each controller of a manager is built with.
 */
import { of, type Observable, type SchedulerLike } from 'rxjs';
import type { EventRecorder } from '../client/events/index.js';
import { InformerHealthError } from '../controller/builder/index.js';
import type { ReconcileMetrics } from '../controller/index.js';
import { controllerContext, type ControllerContext, type ControllerShards } from '../controller/context/index.js';
import type { InformerFactory } from '../informer/index.js';
import type { Connection, WarningHandler } from '../transport/index.js';
import type { ManagerLogger } from './logging/index.js';

/** What the manager shares between the contexts of its controllers. */
export interface SharedContext {
  readonly connection: Connection;
  readonly informers: InformerFactory;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly leader$: Observable<boolean>;
  readonly stop$: Observable<void>;
  readonly drainTimeout: number;
  readonly recorder: EventRecorder | undefined;
  readonly onWarning: WarningHandler;
}

/**
 * The context of controller `name`: the shared parts, its gate (and its `shards`, when sharded), and a `reconcile`
 * that applies the gate (and the shards' key gate), the
 * manager's shutdown and scheduler, and the manager's metrics hook `metrics` (its metrics and run logs); what it
 * survives goes to `logger`.
 */
export function managerControllerContext(
  shared: SharedContext,
  name: string,
  needsLeadership: boolean,
  logger: ManagerLogger,
  metrics: ReconcileMetrics,
  shards?: ControllerShards,
): ControllerContext {
  return controllerContext({
    ...shared,
    name,
    gate: needsLeadership ? shared.leader$ : of(true),
    metrics,
    ...(shards === undefined ? {} : { shards }),
    reportError: (error) => {
      // The manager logs every informer's status changes itself; the builder's copy of them would be noise.
      if (error instanceof InformerHealthError) logger.debug({ error }, 'controller error');
      else logger.warn({ error }, 'controller error');
    },
  });
}
