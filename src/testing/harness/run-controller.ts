/**
 * `runController`: a controller wired to a fresh virtual cluster inside a `TestScheduler.run()` callback.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { ReplaySubject, type Observable, type SchedulerLike } from 'rxjs';
import { hostController } from '../../controller/context/index.js';
import { seededRandom } from '../apiserver/index.js';
import { virtualCluster, type VirtualCluster, type VirtualClusterOptions } from '../virtual/index.js';
import type { ControllerDefinition, ReconcileEvent } from 'rxkube';

/** Options of {@link runController}. */
export interface RunControllerOptions extends Omit<VirtualClusterOptions, 'scheduler' | 'seed'> {
  /** The run's scheduler: the `TestScheduler` whose `run()` this is called in. */
  readonly scheduler: SchedulerLike;
  /**
   * When the controller is stopped (unsubscribed), `events$` completes and the cluster closes, ms of virtual time.
   * Required: a controller keeps timers (requeues, watch timeouts, lease renewals), so virtual time would never end.
   */
  readonly until: number;
  /** Seeds the cluster's and `random`'s randomness (default 0). */
  readonly seed?: number;
  /** The context's `random`, e.g. `() => 0` for jitter-free retries whose times are exact. Default: seeded by `seed`. */
  readonly random?: () => number;
  /** Objects stored before the controller starts (as `cluster.seed`). */
  readonly objects?: readonly KubernetesObject[];
  /** Its first value starts the controller's graceful stop (`context.stop$`): intake stops, runs in flight drain. */
  readonly stop$?: Observable<unknown>;
  /** Receives what the controller survives (`context.reportError`). Default `reportError` (a process warning). */
  readonly onError?: (error: Error) => void;
}

/** A controller running on a virtual cluster; see {@link runController}. */
export interface ControllerRun {
  /**
   * The virtual cluster the controller runs on, seeded with `objects`: drive it (writes, `cluster.faults`) from
   * scheduled callbacks and read it with `cluster.list()`. It is closed at `until` (or `stop()`).
   */
  readonly cluster: VirtualCluster;
  /** Every ReconcileEvent so far, in order (read it after the flush, or from scheduled callbacks). */
  readonly events: readonly ReconcileEvent[];
  /**
   * The controller's events for marble assertions (`expectReconciles(helpers, run.events$)`): every event at its
   * virtual time (a late subscriber first gets the earlier ones), completing at `until`.
   */
  readonly events$: Observable<ReconcileEvent>;
  /** Stops the controller now (as reaching `until` does). */
  stop(): void;
}

/**
 * Starts `definition`'s controller on a new virtual cluster at the current virtual time and stops it at `until`.
 * Call it inside `TestScheduler.run()`; drive the cluster (writes, `cluster.faults`) from scheduled callbacks or
 * cold marbles; assert on `events$` with `expectReconciles`, or on `events` and `cluster.list()` after the flush.
 *
 * # Guarantees
 * - The controller gets a `ControllerContext` as under `simulate`, the manager and `startController`: the cluster as
 *   its connection, the run's scheduler, a seeded `random`, an always-open gate and `stop$`. So the one definition
 *   serves marble tests, simulations and production.
 * - At `until` the controller is unsubscribed and the cluster closed, so `TestScheduler.run()` returns.
 * - An error of the controller's stream errors `events$` (so the marble shows `#`); nothing is swallowed.
 * - The health reports of the controller's informers (a refused request, an unknown kind, a recovery) land in
 *   `cluster.health` and the `onHealth` option, never in process warnings that would leak into the test's output.
 *
 * # Caveats
 * - `events$` replays every event: subscribe it at frame 0 (as `expectObservable` does) to see each at its time.
 */
export function runController(definition: ControllerDefinition, options: RunControllerOptions): ControllerRun {
  const { scheduler, until, seed = 0, objects, random, stop$, onError, ...clusterOptions } = options;
  if (typeof until !== 'number' || !Number.isFinite(until) || until < 0) {
    throw new RangeError(`runController: until must be a finite number of ms >= 0, got ${String(until)}`);
  }
  const cluster = virtualCluster({ ...clusterOptions, scheduler, seed });
  if (objects !== undefined && objects.length > 0) cluster.seed(objects);
  const events: ReconcileEvent[] = [];
  const events$ = new ReplaySubject<ReconcileEvent>();
  const started$ = hostController(definition, {
    connection: cluster,
    scheduler,
    random: random ?? seededRandom(seed ^ 0x5eed),
    ...(stop$ ? { stop$ } : {}),
    ...(onError ? { onError } : {}),
  });
  const subscription = started$.subscribe({
    next: (event) => {
      events.push(event);
      events$.next(event);
    },
    error: (error: unknown) => events$.error(error),
    complete: () => events$.complete(),
  });
  const stop = (): void => {
    subscription.unsubscribe();
    cluster.close();
    events$.complete();
  };
  const timer = scheduler.schedule(stop, Math.max(0, until - scheduler.now()));
  subscription.add(timer);
  return { cluster, events, events$: events$.asObservable(), stop };
}
