/**
 * The reconcile operator's metrics hook: the queue says what it does, as client-go's workqueue tells its
 * `MetricsProvider`, so that no one has to rebuild the queue's rules from outside to count it. A host that records
 * metrics implements it (the manager does); `rxkube/extend` exports it. The declarations are in a file of their own
 * because `rxkube`'s `ReconcileOptions` names them (from `rxkube/extend`) and they name `rxkube`'s `ReconcileEvent`.
 */
import type { ReconcileEvent } from 'rxkube';
import type { StaleRead } from './readiness-hook.js';

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
  /**
   * The run of `key` that just `started` reads caches older than its key's last own writes: the `readiness` hook
   * gave up waiting for them (`controller_runtime_reconcile_stale_reads_total`). Called right before its `started`
   * event, after `started`.
   */
  staleRead?(key: string, staleRead: StaleRead): void;
  /** The run of `key` freed its slot after `durationMs` (client-go's `done`: `workqueue_work_duration_seconds`). */
  done?(key: string, durationMs: number): void;
  /** How a run ended, in one call: its completion and what followed it (controller-runtime's `result`). */
  outcome?(
    run: Extract<ReconcileEvent, { type: 'succeeded' | 'failed' }>,
    next: Extract<ReconcileEvent, { type: 'requeued' | 'retrying' | 'dropped' }> | undefined,
  ): void;
}
