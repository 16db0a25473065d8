/**
 * One controller's metrics, derived from its triggers, its `ReconcileEvent`s and its run outcomes.
 */
import type { SchedulerLike } from 'rxjs';
import { ReconcileTimeoutError, type ReconcileEvent, type ReconcileTrigger } from '../../controller/index.js';
import type { RunOutcome } from '../outcomes.js';
import type { ManagerMetrics } from './definitions.js';
import { QueueModel } from './queue-model.js';

/** controller-runtime initialises every `result` at 0, so rates exist before the first run of each kind. */
const RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;

/**
 * Records one controller into the manager's metrics.
 *
 * # Guarantees
 * - `controller_runtime_*` follow controller-runtime: every run counts once in `reconcile_total` by result and in
 *   `reconcile_time_seconds`; failures in `reconcile_errors_total` (terminal ones also in
 *   `terminal_reconcile_errors_total`, timeouts also in `reconcile_timeouts_total`); `active_workers` counts runs
 *   in flight.
 * - A run whose Promise outlived its `timeout` (`failed` marked `held`) is in flight until its `released` event:
 *   it counts in `active_workers`, `unfinished_work_seconds` and `longest_running_processor_seconds` while it holds
 *   its key and slot, its work duration is observed when it settles, and its retry enters the queue model only
 *   then. These gauges exist to reveal stuck workers, and a held run is one.
 * - `workqueue_*` follow client-go: `queue_duration_seconds` observes each run's queue wait, `work_duration_seconds`
 *   each run's duration (until `released` for a held run), `retries_total` each retry scheduled; `depth` and
 *   `adds_total` come from a {@link QueueModel}; `unfinished_work_seconds` and `longest_running_processor_seconds`
 *   are computed at scrape time from the runs in flight.
 */
export class ControllerMetrics {
  private readonly inFlight = new Map<string, number>();
  /**
   * Keys whose run is a Promise that outlived its timeout (a `failed` marked `held`), until its `released`: when its
   * retry (or, after a gate closure, its next run) becomes due, if it has one.
   */
  private readonly held = new Map<string, number | undefined>();
  private readonly model: QueueModel;
  private readonly labels: { readonly controller: string };
  private readonly queueLabels: { readonly name: string; readonly controller: string };
  private readonly collect = (): void => this.collectInFlight();

  constructor(
    private readonly metrics: ManagerMetrics,
    private readonly scheduler: SchedulerLike,
    controller: string,
  ) {
    this.labels = { controller };
    this.queueLabels = { name: controller, controller };
    for (const result of RESULTS) metrics.reconcileTotal.inc({ controller, result }, 0);
    for (const counter of [metrics.reconcileErrors, metrics.terminalErrors, metrics.reconcileTimeouts]) counter.inc(this.labels, 0);
    metrics.activeWorkers.set(this.labels, 0);
    metrics.adds.inc(this.queueLabels, 0);
    metrics.retries.inc(this.queueLabels, 0);
    metrics.depth.set(this.queueLabels, 0);
    metrics.unfinishedWork.sources.add(this.collect);
    metrics.longestRunning.sources.add(this.collect);
    this.model = new QueueModel(scheduler, () => metrics.adds.inc(this.queueLabels), (depth) => metrics.depth.set(this.queueLabels, depth));
  }

  /** The `concurrency` the controller's reconcile runs with. */
  concurrency(value: number): void {
    this.metrics.maxConcurrent.set(this.labels, value === Number.POSITIVE_INFINITY ? Number.MAX_SAFE_INTEGER : value);
  }

  trigger(trigger: ReconcileTrigger | string): void {
    const key = typeof trigger === 'string' ? trigger : typeof trigger === 'object' && trigger !== null ? trigger.key : undefined;
    // Invalid triggers are rejected by the operator and never queued.
    if (typeof key === 'string' && key !== '') this.model.trigger(key);
  }

  event(event: ReconcileEvent): void {
    switch (event.type) {
      case 'started':
        this.model.started(event.key);
        this.inFlight.set(event.key, event.time);
        this.metrics.activeWorkers.set(this.labels, this.inFlight.size);
        this.metrics.queueDuration.observe(this.queueLabels, event.queueWaitMs / 1000);
        return;
      case 'failed':
        if (event.held === true) {
          // Reported at its deadline, but the Promise still holds the key and a worker: in flight until `released`.
          this.held.set(event.key, event.gateClosed === true ? event.time : undefined);
          return;
        }
        this.ended(event.key, event.durationMs);
        // A run the gate closure interrupted leaves its key ready again at once.
        if (event.gateClosed === true) this.model.delayed(event.key, 0);
        return;
      case 'succeeded':
        this.ended(event.key, event.durationMs);
        return;
      case 'released': {
        const readyAt = this.held.get(event.key);
        this.held.delete(event.key);
        this.ended(event.key, event.durationMs);
        if (readyAt !== undefined) this.model.delayed(event.key, Math.max(0, readyAt - event.time));
        return;
      }
      case 'retrying':
        this.metrics.retries.inc(this.queueLabels);
        // A held run's retry waits for its Promise too: it is queued when the run is released.
        if (this.held.has(event.key)) this.held.set(event.key, event.time + event.delayMs);
        else this.model.delayed(event.key, event.delayMs);
        return;
      case 'requeued':
        this.model.delayed(event.key, event.delayMs);
        return;
      default:
        return;
    }
  }

  outcome(outcome: RunOutcome): void {
    const { controller } = this.labels;
    this.metrics.reconcileTotal.inc({ controller, result: outcome.result });
    this.metrics.reconcileTime.observe(this.labels, outcome.durationMs / 1000);
    if (outcome.result !== 'error') return;
    this.metrics.reconcileErrors.inc(this.labels);
    if (outcome.terminal === true) this.metrics.terminalErrors.inc(this.labels);
    if (outcome.error instanceof ReconcileTimeoutError) this.metrics.reconcileTimeouts.inc(this.labels);
  }

  /** The operator dropped its waiting keys (graceful stop). */
  stopped(): void {
    this.model.clear();
  }

  dispose(): void {
    this.model.dispose();
    this.inFlight.clear();
    this.held.clear();
    this.metrics.activeWorkers.set(this.labels, 0);
    this.collectInFlight();
    this.metrics.unfinishedWork.sources.delete(this.collect);
    this.metrics.longestRunning.sources.delete(this.collect);
  }

  /** A run is over: its worker is free, and its work duration is observed (as client-go's `Done`). */
  private ended(key: string, durationMs: number): void {
    this.model.ended(key);
    this.inFlight.delete(key);
    this.metrics.activeWorkers.set(this.labels, this.inFlight.size);
    this.metrics.workDuration.observe(this.queueLabels, durationMs / 1000);
  }

  private collectInFlight(): void {
    const now = this.scheduler.now();
    let total = 0;
    let longest = 0;
    for (const startedAt of this.inFlight.values()) {
      const seconds = Math.max(0, now - startedAt) / 1000;
      total += seconds;
      longest = Math.max(longest, seconds);
    }
    this.metrics.unfinishedWork.set(this.queueLabels, total);
    this.metrics.longestRunning.set(this.queueLabels, longest);
  }
}
