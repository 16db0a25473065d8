/**
 * The manager's Prometheus metrics: controller-runtime's and client-go's names, labels and buckets, registered in
 * one prom-client registry.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** controller-runtime's `controller_runtime_reconcile_time_seconds` buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** client-go's workqueue buckets: `ExponentialBuckets(10e-9, 10, 12)`, 10 ns to 1000 s. */
const WORKQUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/** A gauge whose value is computed at scrape time by whoever registered a source for it. */
export type CollectedGauge<L extends string = string> = Gauge<L> & { readonly sources: Set<() => void> };

/** Every metric the manager keeps, by its Prometheus name. */
export interface ManagerMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalErrors: Counter<'controller'>;
  readonly reconcileTimeouts: Counter<'controller'>;
  readonly staleReads: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrent: Gauge<'controller'>;
  readonly activeWorkers: CollectedGauge<'controller'>;
  readonly depth: CollectedGauge<'name' | 'controller' | 'priority'>;
  readonly adds: Counter<'name' | 'controller'>;
  readonly queueDuration: Histogram<'name' | 'controller'>;
  readonly queueDurationByPriority: Histogram<'name' | 'controller' | 'priority'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly unfinishedWork: CollectedGauge<'name' | 'controller'>;
  readonly longestRunning: CollectedGauge<'name' | 'controller'>;
  readonly retries: Counter<'name' | 'controller'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly lists: Counter<'name'>;
  readonly relists: Counter<'name'>;
  readonly watches: Counter<'name'>;
  readonly reflectorErrors: Counter<'name' | 'reason'>;
  readonly problems: Counter<'name' | 'reason'>;
  readonly lastResourceVersion: Gauge<'name'>;
  readonly shardRanges: Gauge<'name' | 'state'>;
  readonly shardRangeOpen: Gauge<'name' | 'range'>;
  readonly shardMembers: Gauge<'name'>;
  readonly shardHandovers: Counter<'name' | 'reason'>;
  readonly shardLost: Counter<'name' | 'reason'>;
  readonly shardObjects: CollectedGauge<'name' | 'controller' | 'range'>;
  /** The Prometheus text of the registry, followed by the process metrics when they are on. */
  scrape(): Promise<string>;
  /** Takes the manager's metrics out of the registry (the process metrics are shared and stay). */
  remove(): void;
}

/** prom-client's default metrics, registered once per process: they describe the process, not one manager. */
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Registers the manager's metrics in `registry`.
 *
 * # Guarantees
 * - Names, label names and buckets are controller-runtime's (`controller_runtime_*`, `workqueue_*`,
 *   `leader_election_master_status`) and client-go's reflector's (`reflector_*`), so existing dashboards work;
 *   `workqueue_depth` has controller-runtime's priority queue's `priority` label. One is rxkube's own:
 *   `workqueue_queue_duration_by_priority_seconds`, the queue waits of `workqueue_queue_duration_seconds` by priority.
 * - Throws a clear error if `registry` already holds one of these names (two managers on one registry).
 */
export function createManagerMetrics(registry: Registry, withProcessMetrics: boolean): ManagerMetrics {
  const registers = [registry];
  const names: string[] = [];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> => {
    names.push(name);
    return new Counter<L>({ name, help, labelNames, registers });
  };
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> => {
    names.push(name);
    return new Gauge<L>({ name, help, labelNames, registers });
  };
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ): Histogram<L> => {
    names.push(name);
    return new Histogram<L>({ name, help, labelNames, buckets, registers });
  };
  const collected = <L extends string>(name: string, help: string, labelNames: readonly L[]): CollectedGauge<L> => {
    names.push(name);
    const sources = new Set<() => void>();
    const metric = new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      collect() {
        for (const source of sources) source();
      },
    });
    return Object.assign(metric, { sources });
  };
  for (const name of MANAGER_METRIC_NAMES) {
    if (registry.getSingleMetric(name) !== undefined) {
      throw new Error(`manager: the metrics registry already has ${name}; each manager needs a registry of its own`);
    }
  }
  const queue = ['name', 'controller'] as const;
  const metrics: Omit<ManagerMetrics, 'registry' | 'remove' | 'scrape'> = {
    reconcileTotal: counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', [
      'controller',
      'result',
    ]),
    reconcileErrors: counter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      ['controller'],
    ),
    terminalErrors: counter(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      ['controller'],
    ),
    reconcileTimeouts: counter(
      'controller_runtime_reconcile_timeouts_total',
      'Total number of reconciliation timeouts per controller',
      ['controller'],
    ),
    staleReads: counter(
      'controller_runtime_reconcile_stale_reads_total',
      "Total number of reconciliations that started before the cache showed the writes of their key's last runs, per controller",
      ['controller'],
    ),
    reconcileTime: histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      ['controller'],
      RECONCILE_BUCKETS,
    ),
    maxConcurrent: gauge(
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      ['controller'],
    ),
    activeWorkers: collected('controller_runtime_active_workers', 'Number of currently used workers per controller', [
      'controller',
    ]),
    depth: collected('workqueue_depth', 'Current depth of workqueue by workqueue and priority', [...queue, 'priority']),
    adds: counter('workqueue_adds_total', 'Total number of adds handled by workqueue', queue),
    queueDuration: histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      queue,
      WORKQUEUE_BUCKETS,
    ),
    queueDurationByPriority: histogram(
      'workqueue_queue_duration_by_priority_seconds',
      'How long in seconds an item stays in workqueue before being requested, by the priority of its run',
      [...queue, 'priority'],
      WORKQUEUE_BUCKETS,
    ),
    workDuration: histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes.',
      queue,
      WORKQUEUE_BUCKETS,
    ),
    unfinishedWork: collected(
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
      queue,
    ),
    longestRunning: collected(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running.',
      queue,
    ),
    retries: counter('workqueue_retries_total', 'Total number of retries handled by workqueue', queue),
    leaderStatus: gauge(
      'leader_election_master_status',
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
      ['name'],
    ),
    lists: counter('reflector_lists_total', 'Total number of API lists done by the reflectors', ['name']),
    relists: counter(
      'reflector_relists_total',
      'Total number of lists after the first one (410 Gone, resync after errors) by the reflectors',
      ['name'],
    ),
    watches: counter('reflector_watches_total', 'Total number of API watches accepted for the reflectors', ['name']),
    reflectorErrors: counter(
      'reflector_errors_total',
      'Total number of failed list and watch requests of the reflectors, by reason',
      ['name', 'reason'],
    ),
    problems: counter(
      'reflector_problems_total',
      'Total number of bad objects or lines the reflectors and stores reported, by reason',
      ['name', 'reason'],
    ),
    lastResourceVersion: gauge('reflector_last_resource_version', 'Last resource version seen for the reflectors', [
      'name',
    ]),
    shardRanges: gauge(
      'shard_ranges',
      "Number of hash ranges of the sharded controllers' Leases this replica runs (open), hands over (draining) or campaigns for",
      ['name', 'state'],
    ),
    shardRangeOpen: gauge('shard_range_open', '1 while this replica holds and runs the hash range, else 0', [
      'name',
      'range',
    ]),
    shardMembers: gauge('shard_members', 'Number of live replicas this replica sees through their member Leases', [
      'name',
    ]),
    shardHandovers: counter(
      'shard_handovers_total',
      'Total number of hash ranges this replica handed over (closed, drained, released), by reason',
      ['name', 'reason'],
    ),
    shardLost: counter(
      'shard_lost_total',
      "Total number of hash ranges this replica lost (the Lease's renew deadline passed, or another holder was seen)",
      ['name', 'reason'],
    ),
    shardObjects: collected(
      'shard_objects_cached',
      "Number of objects in a sharded controller's primary cache, by the hash range they lie in",
      ['name', 'controller', 'range'],
    ),
  };
  // Process metrics are one set per process, served beside the registry; unless the registry already has them.
  const process =
    withProcessMetrics && registry.getSingleMetric('process_cpu_user_seconds_total') === undefined
      ? processMetrics()
      : undefined;
  return {
    ...metrics,
    registry,
    scrape: async () =>
      process === undefined ? registry.metrics() : `${await registry.metrics()}\n${await process.metrics()}`,
    remove: () => {
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}

/** Every metric name the manager registers (Node's process metrics aside). */
export const MANAGER_METRIC_NAMES: readonly string[] = [
  'controller_runtime_reconcile_total',
  'controller_runtime_reconcile_errors_total',
  'controller_runtime_terminal_reconcile_errors_total',
  'controller_runtime_reconcile_timeouts_total',
  'controller_runtime_reconcile_stale_reads_total',
  'controller_runtime_reconcile_time_seconds',
  'controller_runtime_max_concurrent_reconciles',
  'controller_runtime_active_workers',
  'workqueue_depth',
  'workqueue_adds_total',
  'workqueue_queue_duration_seconds',
  'workqueue_queue_duration_by_priority_seconds',
  'workqueue_work_duration_seconds',
  'workqueue_unfinished_work_seconds',
  'workqueue_longest_running_processor_seconds',
  'workqueue_retries_total',
  'leader_election_master_status',
  'reflector_lists_total',
  'reflector_relists_total',
  'reflector_watches_total',
  'reflector_errors_total',
  'reflector_problems_total',
  'reflector_last_resource_version',
  'shard_ranges',
  'shard_range_open',
  'shard_members',
  'shard_handovers_total',
  'shard_lost_total',
  'shard_objects_cached',
];
