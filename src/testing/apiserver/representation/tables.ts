/**
 * Printer columns for `as=Table`: the real server's columns for Pods and Deployments (what `kubectl get` shows
 * most), the default Name/Created At table for everything else.
 * @module
 */
import { isPlainObject, type KubeObject } from '../machinery/index.js';

/** One Table column, as in `meta/v1 TableColumnDefinition`. */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

const column = (name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});

const defaultColumns: readonly ColumnDefinition[] = [
  column('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
  column(
    'Created At',
    'date',
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  ),
];

/** A short age close to apimachinery's `duration.HumanDuration`: `45s`, `3m12s`, `95m`, `5h`, `2d`. */
export function shortAge(from: string | undefined, now: number): string {
  if (from === undefined) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - Date.parse(from)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** Columns and the cells of one row. */
export interface Printer {
  readonly columns: readonly ColumnDefinition[];
  /** `nowMs`: the server's clock, for ages. */
  cells(obj: KubeObject, nowMs: number): unknown[];
}

const podPrinter: Printer = {
  columns: [
    column('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    column(
      'Age',
      'string',
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    ),
    column(
      'IP',
      'string',
      'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      1,
    ),
    column('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
  ],
  cells(obj, nowMs) {
    const spec = record(obj['spec']);
    const status = record(obj['status']);
    const statuses = list(status['containerStatuses']);
    const ready = statuses.filter((c) => c['ready'] === true).length;
    const restarts = statuses.reduce((n, c) => n + (typeof c['restartCount'] === 'number' ? c['restartCount'] : 0), 0);
    const phase =
      obj.metadata.deletionTimestamp !== undefined
        ? 'Terminating'
        : String(status['reason'] ?? status['phase'] ?? 'Unknown');
    return [
      obj.metadata.name ?? '',
      `${ready}/${list(spec['containers']).length}`,
      phase,
      restarts,
      shortAge(obj.metadata.creationTimestamp, nowMs),
      String(status['podIP'] ?? '<none>'),
      String(spec['nodeName'] ?? '<none>'),
    ];
  },
};

const deploymentPrinter: Printer = {
  columns: [
    column('Name', 'string', 'Name must be unique within a namespace.', 0, 'name'),
    column('Ready', 'string', 'Number of the pod with ready state'),
    column(
      'Up-to-date',
      'string',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    column(
      'Available',
      'string',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    column(
      'Age',
      'string',
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    ),
  ],
  cells(obj, nowMs) {
    const spec = record(obj['spec']);
    const status = record(obj['status']);
    const n = (v: unknown) => (typeof v === 'number' ? v : 0);
    return [
      obj.metadata.name ?? '',
      `${n(status['readyReplicas'])}/${n(spec['replicas'])}`,
      n(status['updatedReplicas']),
      n(status['availableReplicas']),
      shortAge(obj.metadata.creationTimestamp, nowMs),
    ];
  },
};

const defaultPrinter: Printer = {
  columns: defaultColumns,
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? ''],
};

/** Custom resources without additionalPrinterColumns: Name and Age (the CRD convertor renders dates as ages). */
const customPrinter: Printer = {
  columns: [
    defaultColumns[0]!,
    column(
      'Age',
      'date',
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    ),
  ],
  cells: (obj, nowMs) => [obj.metadata.name ?? '', shortAge(obj.metadata.creationTimestamp, nowMs)],
};

/** The printer for a kind: Pods and Deployments get theirs, custom resources Name/Age, the rest Name/Created At. */
export function printerFor(kind: string, custom: boolean): Printer {
  if (custom) return customPrinter;
  if (kind === 'Pod') return podPrinter;
  if (kind === 'Deployment') return deploymentPrinter;
  return defaultPrinter;
}
