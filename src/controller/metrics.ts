/**
 * The reconcile operator's metrics hook: the queue says what it does, as client-go's workqueue tells its
 * `MetricsProvider`, so that no one has to rebuild the queue's rules from outside to count it.
 */
import type { SchedulerLike } from 'rxjs';
import { messageOf } from '../describe/index.js';
import { reportError } from './predicates/index.js';
import type { ReconcileEvent } from './types.js';

/**
 * A live, read-only view of the queue of one subscription of `reconcile`, for gauges read when they are scraped
 * (client-go's `updateUnfinishedWork`, pulled instead of polled). Every figure is the operator's own state at the
 * moment it is read.
 *
 * # Guarantees
 * - `depth` is client-go's `workqueue_depth`: the keys ready to run (waiting for a worker or for the gate) plus the
 *   running keys triggered again, which run once more right after (client-go's dirty set). A key waiting for its
 *   retry or requeue delay is not in the depth until the delay runs out, as in client-go's delaying queue. After
 *   `stop$` the waiting keys are dropped, so the depth is 0.
 * - `activeWorkers` counts the runs holding a concurrency slot: a Promise held past its `timeout` keeps its slot,
 *   and is counted, until it settles.
 * - `depthByPriority` splits `depth` by priority (controller-runtime's `workqueue_depth{priority}`): a ready key at
 *   the priority of its pending run, a running key triggered again at the priority of its next run. Its counts add
 *   up to `depth`; a priority with no key in the depth is absent.
 * - `unfinishedWorkMs` and `longestRunningMs` are measured on the operator's scheduler over the runs in flight
 *   (held Promises included), as client-go's `unfinished_work_seconds` and
 *   `longest_running_processor_seconds` are.
 */
export interface ReconcileQueueView {
  /** Keys ready to run, plus running keys triggered again. */
  readonly depth: number;
  /** `depth` by priority: a new Map of each priority in the depth and its count, each time it is read. */
  readonly depthByPriority: ReadonlyMap<number, number>;
  /** Runs holding a concurrency slot. */
  readonly activeWorkers: number;
  /** The operator's `concurrency` (`Infinity` when unbounded). */
  readonly concurrency: number;
  /** The sum of how long each run in flight has been running, ms. */
  readonly unfinishedWorkMs: number;
  /** How long the oldest run in flight has been running, ms (0 when none runs). */
  readonly longestRunningMs: number;
}

/**
 * What a `reconcile` operator tells about its queue and its runs (the `metrics` option; client-go's
 * `MetricsProvider` with its `add`, `get` and `done`). Every method is optional; give the ones you record. The
 * manager records controller-runtime's and client-go's metrics with one of these.
 *
 * # Guarantees
 * - `opened` is called once per subscription, before anything else of it; `closed` once when it ends (completion,
 *   error or unsubscription). Nothing of that subscription is reported after `closed`.
 * - `added` is client-go's `add`: once each time a key enters the depth (see {@link ReconcileQueueView.depth}): a
 *   trigger for an idle or delayed key, a trigger for a running key not yet triggered again, a retry or requeue
 *   whose delay ran out, and a run the gate closure interrupted (its key is ready again). A trigger that coalesces
 *   into a waiting run adds nothing. While no key is dropped by a stop, the adds minus the `started` calls equal the
 *   depth at every moment.
 * - `added` and `started` are told the priority of the run (controller-runtime's priority queue passes it to its
 *   `add` and `get`): for `added`, the priority the key entered the depth with (a later trigger may raise it; the
 *   view's `depthByPriority` is current), for `started` the run's (`request.priority`).
 * - `started` is client-go's `get`: a run starts; `queueWaitMs` is the `queueWaitMs` of its `started` event.
 * - `done` is client-go's `done`: the run no longer holds its slot, `durationMs` after it started. For a Promise held
 *   past its `timeout` that is when it settles (its `released` event), not its deadline.
 * - `outcome` is called once per run, with its completion event and the event that followed it (`requeued`,
 *   `retrying`, `dropped`), or `undefined` when none did, right after the last of them was emitted. A run's
 *   controller-runtime `result` is `error` for `failed`, `requeue_after` when `next` is `requeued`, else `success`.
 *   A run the gate closure interrupted is a `failed` with `gateClosed: true` and no `next`: no failure is counted
 *   against its key (no retry), and it is `added` again.
 * - The calls are synchronous, in the order the operator acts; what a method throws is not caught (as for a
 *   subscriber's `next`), so keep them cheap and total.
 *
 * # Caveats
 * - Without a hook the operator calls nothing and allocates nothing for metrics.
 * - Methods are called on the hook object (`this` is the hook).
 */
export interface ReconcileMetrics {
  /** A subscription began; `queue` reads its state until `closed`. */
  opened?(queue: ReconcileQueueView): void;
  /** The subscription of `queue` ended. */
  closed?(queue: ReconcileQueueView): void;
  /** `key` entered the depth at `priority` (client-go's `add`: `workqueue_adds_total`). */
  added?(key: string, priority: number): void;
  /**
   * A run of `key` at `priority` started after waiting `queueWaitMs` (client-go's `get`:
   * `workqueue_queue_duration_seconds`).
   */
  started?(key: string, queueWaitMs: number, priority: number): void;
  /** The run of `key` freed its slot after `durationMs` (client-go's `done`: `workqueue_work_duration_seconds`). */
  done?(key: string, durationMs: number): void;
  /** How a run ended, in one call: its completion and what followed it (controller-runtime's `result`). */
  outcome?(
    run: Extract<ReconcileEvent, { type: 'succeeded' | 'failed' }>,
    next: Extract<ReconcileEvent, { type: 'requeued' | 'retrying' | 'dropped' }> | undefined,
  ): void;
}

/** Both hooks, each called in turn (`a` first); either alone if the other is absent. Internal. */
export function bothMetrics(a: ReconcileMetrics | undefined, b: ReconcileMetrics | undefined): ReconcileMetrics | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return {
    opened(queue) {
      a.opened?.(queue);
      b.opened?.(queue);
    },
    closed(queue) {
      a.closed?.(queue);
      b.closed?.(queue);
    },
    added(key, priority) {
      a.added?.(key, priority);
      b.added?.(key, priority);
    },
    started(key, queueWaitMs, priority) {
      a.started?.(key, queueWaitMs, priority);
      b.started?.(key, queueWaitMs, priority);
    },
    done(key, durationMs) {
      a.done?.(key, durationMs);
      b.done?.(key, durationMs);
    },
    outcome(run, next) {
      a.outcome?.(run, next);
      b.outcome?.(run, next);
    },
  };
}

/**
 * The view of one subscription's queue: `depth`, `depthByPriority` and `active` read live, `runs` are the sets of
 * runs in flight (held Promises included), measured on `scheduler`. Internal; the runner builds one only for a hook.
 */
export function queueView(
  concurrency: number, scheduler: SchedulerLike, depth: () => number, depthByPriority: () => ReadonlyMap<number, number>,
  active: () => number, runs: readonly ReadonlySet<{ readonly startedAt: number }>[],
): ReconcileQueueView {
  const running = (longest: boolean): number => {
    const now = scheduler.now();
    let total = 0;
    let max = 0;
    for (const set of runs) {
      for (const run of set) {
        const ms = Math.max(0, now - run.startedAt);
        total += ms;
        max = Math.max(max, ms);
      }
    }
    return longest ? max : total;
  };
  return Object.freeze({
    get depth() {
      return depth();
    },
    get depthByPriority() {
      return depthByPriority();
    },
    get activeWorkers() {
      return active();
    },
    concurrency,
    get unfinishedWorkMs() {
      return running(false);
    },
    get longestRunningMs() {
      return running(true);
    },
  });
}

/**
 * The method `name` of `hook`, called on it, or `undefined` when there is none, so that the hot path tests one field.
 * What the method throws is reported (`config.onUnhandledError`, else a process warning), never thrown into the
 * operator: a broken hook must not stop reconciles. Internal.
 */
export function hookOf<K extends keyof ReconcileMetrics>(
  hook: ReconcileMetrics | undefined, name: K,
): NonNullable<ReconcileMetrics[K]> | undefined {
  const method = hook?.[name] as ((this: ReconcileMetrics, a: unknown, b: unknown, c: unknown) => void) | undefined;
  if (typeof method !== 'function') return undefined;
  const guarded = (a: unknown, b: unknown, c: unknown): void => {
    try {
      method.call(hook!, a, b, c);
    } catch (error) {
      reportError(new Error(`reconcile: the metrics hook's ${name}() threw: ${messageOf(error)}`, { cause: error }));
    }
  };
  return guarded as NonNullable<ReconcileMetrics[K]>;
}

/** Throws a `TypeError` unless `hook` is undefined or an object whose every hook method present is a function. */
export function checkMetrics(hook: unknown): void {
  if (hook === undefined) return;
  if (hook === null || typeof hook !== 'object') {
    throw new TypeError(
      `reconcile: metrics must be an object of hook methods (${HOOK_METHODS.join(', ')}), got ${hook === null ? 'null' : typeof hook}`,
    );
  }
  for (const name of HOOK_METHODS) {
    const method = (hook as Record<string, unknown>)[name];
    if (method !== undefined && typeof method !== 'function') {
      throw new TypeError(`reconcile: metrics.${name} must be a function, got ${method === null ? 'null' : typeof method}`);
    }
  }
}

const HOOK_METHODS = ['opened', 'closed', 'added', 'started', 'done', 'outcome'] as const satisfies readonly (keyof ReconcileMetrics)[];
