/**
 * `runController`: a controller wired to a fresh virtual cluster inside a `TestScheduler.run()` callback.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { ReplaySubject, type Observable, type SchedulerLike } from 'rxjs';
import { seededRandom } from '../apiserver/index.js';
import {
  ControllerFaultState,
  hostRestartable,
  type CrashMode,
  type CrashOptions,
  type MergeEventsOptions,
  type StaleViewOptions,
  VirtualTimeStuckError,
} from '../simulate/index.js';
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

/** A crash of the controller under {@link runController}. */
export interface ControllerCrash {
  /** Virtual ms it crashed at. */
  readonly at: number;
  /** How the crash met the write (see {@link CrashMode}). */
  readonly mode: CrashMode;
  /** `<METHOD> <path>` of the write it crashed at. */
  readonly request: string;
  /** Virtual ms from the crash to the restart. */
  readonly restartMs: number;
}

/**
 * The faults of the controller's own connection to the cluster, the bug classes of Sieve (OSDI '22), acting at the
 * current virtual time; `simulate` draws the same ones (`CONTROLLER_FAULT_KINDS`). The cluster, and every other
 * client of it, keep seeing the truth.
 *
 * # Guarantees
 * - The same code as under `simulate`: a fault given here behaves as the drawn fault of the same values.
 * - Writes always go to the truth, and conflict as they would.
 * - A fault with a bad value (a negative or non-finite time, a count that is no integer >= 0, an unknown mode) is
 *   refused at once with a `RangeError` or `TypeError` naming it, and arms nothing.
 */
export interface ControllerFaults {
  /**
   * The controller is served a lagging view for `forMs`: each watch event arrives `lagMs` late (or, with
   * `watchLag: 'versions'`, once the truth is `versions` resourceVersions past it), and lists are served `versions`
   * resourceVersions back; with `relist`, its open watches first end with 410 Expired, so it relists from the past.
   */
  staleView(options: StaleViewOptions): void;
  /**
   * For `forMs`, the controller's watches hold their events and then deliver each object's last state only, each
   * watch up to `spreadMs` after the window.
   */
  mergeEvents(options: MergeEventsOptions): void;
  /**
   * The controller crashes at its `write`-th own write from now (0: the next; Lease writes do not count): the write
   * is not sent (`notSent`), stored and answered (`sent`), or stored with its answer lost (`answerLost`). Its
   * memory is gone; `restartMs` later a fresh controller (a new context: caches, queues, `random`) starts over the
   * same cluster, its events continuing on `events$`.
   */
  crash(options: CrashOptions): void;
  /** Every crash so far, in order. */
  readonly crashes: readonly ControllerCrash[];
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
  /** Faults of the controller's own connection: a stale view, a crash at a write, merged events. */
  readonly controllerFaults: ControllerFaults;
  /** Stops the controller now (as reaching `until` does). */
  stop(): void;
}

/** How often one key may start at one virtual instant under `runController` before the run counts as stuck. */
const MAX_STARTS_PER_INSTANT = 1000;

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
 * - A controller that keeps one key running at one virtual instant (a run that returns `{ requeueAfter: 0 }` every
 *   time) would keep virtual time from ever reaching `until`, and the test would hang. Once one key has started
 *   1,000 times at one instant, the controller is stopped, `events$` errors with a
 *   `VirtualTimeStuckError` naming the key and the instant, and the scheduler's flush throws it.
 * - An error of the controller's stream errors `events$` (so the marble shows `#`); nothing is swallowed.
 * - The health reports of the controller's informers (a refused request, an unknown kind, a recovery) land in
 *   `cluster.health` and the `onHealth` option, never in process warnings that would leak into the test's output.
 * - The controller reaches the cluster through a view of its own, where `controllerFaults` act (a stale view, a crash
 *   at a write with a fresh restart, merged events), as under `simulate`; with none armed, the view passes every
 *   request and watch event through in the same frame.
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
  const state = new ControllerFaultState(cluster, seededRandom(seed ^ 0x3e1ee7));
  const crashes: ControllerCrash[] = [];
  const spinning = spinDetector(scheduler);
  // A restarted controller is a new process: the random it is given goes on, a seeded one starts afresh.
  const randomFor = (incarnation: number): (() => number) =>
    random ?? seededRandom((seed ^ 0x5eed) + (incarnation - 1) * 0x9e37);
  const controller = hostRestartable(definition, {
    cluster,
    state,
    random: randomFor,
    ...(stop$ ? { stop$ } : {}),
    ...(onError ? { onError } : {}),
    onCrash: (crash) => crashes.push({ at: scheduler.now(), ...crash }),
    observer: {
      next: (event) => {
        events.push(event);
        events$.next(event);
        if (event.type === 'started' && spinning(event.key)) stuck(event.key);
      },
      // A controller that ended by itself is left alone, its cluster open: what it sent last may still be answered.
      error: (error: unknown) => {
        timer?.unsubscribe();
        events$.error(error);
      },
      complete: () => {
        timer?.unsubscribe();
        events$.complete();
      },
    },
  });
  let timer: { unsubscribe(): void } | undefined;
  const stop = (): void => {
    timer?.unsubscribe();
    controller.stop();
    cluster.close();
    events$.complete();
  };
  const stuck = (key: string): void => {
    const error = new VirtualTimeStuckError(
      scheduler.now(),
      `${key} started ${MAX_STARTS_PER_INSTANT} times at that instant (a run that returns { requeueAfter: 0 } every time?)`,
    );
    timer?.unsubscribe();
    controller.stop();
    cluster.close();
    events$.error(error);
    // Thrown from an action of its own, so that the flush that would have spun forever throws it instead.
    scheduler.schedule(() => {
      throw error;
    });
  };
  controller.start();
  timer = scheduler.schedule(stop, Math.max(0, until - scheduler.now()));
  const controllerFaults: ControllerFaults = {
    staleView: (options) => {
      ms('staleView', 'lagMs', options?.lagMs);
      count('staleView', 'versions', options.versions);
      ms('staleView', 'forMs', options.forMs);
      oneOf('staleView', 'relist', options.relist, [true, false]);
      if (options.watchLag !== undefined) oneOf('staleView', 'watchLag', options.watchLag, ['time', 'versions']);
      state.staleView(options);
    },
    mergeEvents: (options) => {
      ms('mergeEvents', 'forMs', options?.forMs);
      ms('mergeEvents', 'spreadMs', options.spreadMs);
      state.mergeEvents(options);
    },
    crash: (options) => {
      count('crash', 'write', options?.write);
      oneOf('crash', 'mode', options.mode, ['notSent', 'sent', 'answerLost']);
      ms('crash', 'restartMs', options.restartMs);
      state.crashAt(options);
    },
    crashes,
  };
  return { cluster, events, events$: events$.asObservable(), controllerFaults, stop };
}

function ms(fault: string, name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new RangeError(`controllerFaults.${fault}: ${name} must be a finite number of ms >= 0, got ${String(value)}`);
}

function count(fault: string, name: string, value: unknown): void {
  if (!Number.isInteger(value) || (value as number) < 0)
    throw new RangeError(`controllerFaults.${fault}: ${name} must be an integer >= 0, got ${String(value)}`);
}

function oneOf(fault: string, name: string, value: unknown, allowed: readonly unknown[]): void {
  if (!allowed.includes(value))
    throw new TypeError(
      `controllerFaults.${fault}: ${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(value)}`,
    );
}

/** Counts each key's starts at the current virtual instant; says when one reaches `MAX_STARTS_PER_INSTANT`. */
function spinDetector(scheduler: SchedulerLike): (key: string) => boolean {
  let instant = Number.NaN;
  const starts = new Map<string, number>();
  return (key) => {
    const now = scheduler.now();
    if (now !== instant) {
      instant = now;
      starts.clear();
    }
    const count = (starts.get(key) ?? 0) + 1;
    starts.set(key, count);
    return count >= MAX_STARTS_PER_INSTANT;
  };
}
