/**
 * One controller's metrics, as its `reconcile` operators report them through their metrics hook.
 */
import {
  NORMAL_PRIORITY,
  ReconcileTimeoutError,
  type ReconcileDropped,
  type ReconcileFailed,
  type ReconcileMetrics,
  type ReconcileQueueView,
  type ReconcileRequeued,
  type ReconcileRetrying,
  type ReconcileSucceeded,
} from '../../controller/index.js';
import type { ManagerMetrics } from './definitions.js';

/** controller-runtime initialises every `result` at 0, so rates exist before the first run of each kind. */
const RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;

/**
 * Distinct `priority` label values one controller uses at most; the rest share `PRIORITY_OVERFLOW`. controller-runtime's
 * limit and placeholder (`maxRecommendedUniquePriorities`), so that a priority computed per object cannot blow up the
 * number of series.
 */
export const MAX_PRIORITY_LABELS = 25;
/** The `priority` label of every priority past {@link MAX_PRIORITY_LABELS}. */
export const PRIORITY_OVERFLOW = 'exceeded_cardinality_limit';

/** The labels of a `workqueue_*` series by priority. */
interface PriorityLabels {
  readonly name: string;
  readonly controller: string;
  readonly priority: string;
}

/** controller-runtime's `result` label of a run: `requeue` is never used (rxkube has no `Requeue: true`). */
export function resultOf(
  run: ReconcileSucceeded | ReconcileFailed,
  next: ReconcileRequeued | ReconcileRetrying | ReconcileDropped | undefined,
): 'success' | 'requeue_after' | 'error' {
  if (run.type === 'failed') return 'error';
  return next?.type === 'requeued' ? 'requeue_after' : 'success';
}

/**
 * Records one controller into the manager's metrics: the metrics hook of every `reconcile` operator built with its
 * context (`context.reconcile`, so `controller({ context })` too), as client-go's workqueue records into its
 * `MetricsProvider`.
 *
 * # Guarantees
 * - `controller_runtime_*` follow controller-runtime: every run counts once in `reconcile_total` by result and in
 *   `reconcile_time_seconds` (a run the gate closure interrupted counts as an `error` run, as its `failed` event
 *   says, though it charges nothing against its key); failures in `reconcile_errors_total` (terminal ones also in
 *   `terminal_reconcile_errors_total`, timeouts also in `reconcile_timeouts_total`). A run that starts on caches
 *   that do not show its key's last own writes (read-your-own-writes gave up waiting) counts in
 *   `controller_runtime_reconcile_stale_reads_total`, an rxkube metric.
 * - `workqueue_*` follow client-go: `adds_total` counts the operator's adds, `queue_duration_seconds` each run's
 *   queue wait, `work_duration_seconds` each run's time holding its worker, `retries_total` each retry scheduled.
 * - `workqueue_depth` has a `priority` label, as controller-runtime's priority queue's has: the keys in the depth
 *   at each priority (the normal priority, `"0"`, always has a sample). `workqueue_queue_duration_by_priority_seconds`
 *   holds the queue waits by the priority of the run. A controller labels at most 25 distinct priorities; waits and
 *   depth of any other go under `priority="exceeded_cardinality_limit"`.
 * - The gauges are read from the operators' queues when scraped: `depth`, `controller_runtime_active_workers`,
 *   `unfinished_work_seconds` and `longest_running_processor_seconds` are the operators' own figures (summed over
 *   the operators of the controller; the longest is their maximum). A run whose Promise outlived its `timeout` holds
 *   its worker until it settles, and these gauges count it until then: they exist to reveal stuck workers.
 */
export class ControllerMetrics implements ReconcileMetrics {
  private readonly queues = new Set<ReconcileQueueView>();
  private readonly labels: { readonly controller: string };
  private readonly queueLabels: { readonly name: string; readonly controller: string };
  /** The `priority` labels this controller used, and the labels objects that carry them. */
  private readonly priorityLabels = new Map<number, PriorityLabels>();
  private overflowLabels: PriorityLabels | undefined;
  private readonly collect = (): void => this.collectQueues();

  constructor(
    private readonly metrics: ManagerMetrics,
    controller: string,
  ) {
    this.labels = { controller };
    this.queueLabels = { name: controller, controller };
    for (const result of RESULTS) metrics.reconcileTotal.inc({ controller, result }, 0);
    for (const counter of [
      metrics.reconcileErrors,
      metrics.terminalErrors,
      metrics.reconcileTimeouts,
      metrics.staleReads,
    ])
      counter.inc(this.labels, 0);
    metrics.adds.inc(this.queueLabels, 0);
    metrics.retries.inc(this.queueLabels, 0);
    this.labelsOf(NORMAL_PRIORITY); // the normal priority's depth sample exists from the start, first
    for (const gauge of this.gauges()) gauge.sources.add(this.collect);
    this.collectQueues();
  }

  opened(queue: ReconcileQueueView): void {
    this.queues.add(queue);
    const { concurrency } = queue;
    this.metrics.maxConcurrent.set(
      this.labels,
      concurrency === Number.POSITIVE_INFINITY ? Number.MAX_SAFE_INTEGER : concurrency,
    );
  }

  closed(queue: ReconcileQueueView): void {
    this.queues.delete(queue);
  }

  added(): void {
    this.metrics.adds.inc(this.queueLabels);
  }

  started(_key: string, queueWaitMs: number, priority: number): void {
    this.metrics.queueDuration.observe(this.queueLabels, queueWaitMs / 1000);
    this.metrics.queueDurationByPriority.observe(this.labelsOf(priority), queueWaitMs / 1000);
  }

  staleRead(): void {
    this.metrics.staleReads.inc(this.labels);
  }

  done(_key: string, durationMs: number): void {
    this.metrics.workDuration.observe(this.queueLabels, durationMs / 1000);
  }

  outcome(
    run: ReconcileSucceeded | ReconcileFailed,
    next: ReconcileRequeued | ReconcileRetrying | ReconcileDropped | undefined,
  ): void {
    const { controller } = this.labels;
    const result = resultOf(run, next);
    this.metrics.reconcileTotal.inc({ controller, result });
    this.metrics.reconcileTime.observe(this.labels, run.durationMs / 1000);
    if (next?.type === 'retrying') this.metrics.retries.inc(this.queueLabels);
    if (run.type !== 'failed') return;
    this.metrics.reconcileErrors.inc(this.labels);
    if (run.terminal) this.metrics.terminalErrors.inc(this.labels);
    if (run.error instanceof ReconcileTimeoutError) this.metrics.reconcileTimeouts.inc(this.labels);
  }

  /** The controller is gone: its gauges read 0 from now on, and are no longer collected. */
  dispose(): void {
    this.queues.clear();
    this.collectQueues();
    for (const gauge of this.gauges()) gauge.sources.delete(this.collect);
  }

  private gauges() {
    const { depth, activeWorkers, unfinishedWork, longestRunning } = this.metrics;
    return [depth, activeWorkers, unfinishedWork, longestRunning] as const;
  }

  /** The labels of `priority` (the overflow labels past the limit), remembered so that its depth reads 0 later. */
  private labelsOf(priority: number): PriorityLabels {
    const known = this.priorityLabels.get(priority);
    if (known !== undefined) return known;
    if (this.priorityLabels.size < MAX_PRIORITY_LABELS) {
      const labels = { ...this.queueLabels, priority: String(priority) };
      this.priorityLabels.set(priority, labels);
      return labels;
    }
    return (this.overflowLabels ??= { ...this.queueLabels, priority: PRIORITY_OVERFLOW });
  }

  private collectQueues(): void {
    const depth = new Map<PriorityLabels, number>();
    for (const labels of this.priorityLabels.values()) depth.set(labels, 0);
    if (this.overflowLabels !== undefined) depth.set(this.overflowLabels, 0);
    let active = 0;
    let unfinishedMs = 0;
    let longestMs = 0;
    for (const queue of this.queues) {
      for (const [priority, keys] of queue.depthByPriority) {
        const labels = this.labelsOf(priority);
        depth.set(labels, (depth.get(labels) ?? 0) + keys);
      }
      active += queue.activeWorkers;
      unfinishedMs += queue.unfinishedWorkMs;
      longestMs = Math.max(longestMs, queue.longestRunningMs);
    }
    for (const [labels, keys] of depth) this.metrics.depth.set(labels, keys);
    this.metrics.activeWorkers.set(this.labels, active);
    this.metrics.unfinishedWork.set(this.queueLabels, unfinishedMs / 1000);
    this.metrics.longestRunning.set(this.queueLabels, longestMs / 1000);
  }
}
