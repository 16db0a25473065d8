/**
 * The node labeler's options, their defaults and their validation.
 * @module
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import { selectors, type EventRecorder, type Informer } from '../../src/index.js';

/** The label a matching node gets, unless `label` says otherwise. */
export const DEFAULT_LABEL: NodeLabel = Object.freeze({ key: 'rxkube.io/cloud-node', value: 'true' });

/** The seed's `AddAfter(key, 30*time.Second)`: how long until a node that cannot be judged yet is looked at again. */
export const DEFAULT_RECHECK_AFTER_MS = 30_000;

/** The seed's `WorkerCount` goroutines: nodes handled at once. */
export const DEFAULT_WORKERS = 2;

/** The field manager of the label patch (recorded in `managedFields`). */
export const DEFAULT_FIELD_MANAGER = 'rxkube-node-labeler';

/** The `reportingController` of the Events the labeler records. */
export const DEFAULT_REPORTING_CONTROLLER = 'rxkube.io/node-labeler';

/** A label, as a key and a value. */
export interface NodeLabel {
  readonly key: string;
  readonly value: string;
}

/** Options of `nodeLabeler`. */
export interface NodeLabelerOptions {
  /**
   * A node "joined the cluster in a particular way" (the seed's cloud-provider check) when its `spec.providerID`
   * starts with this, e.g. `aws://` or `gce://`. Required, non-empty.
   */
  readonly providerIdPrefix: string;
  /** The label a matching node gets. Default {@link DEFAULT_LABEL}. Checked as the API server checks labels. */
  readonly label?: NodeLabel;
  /**
   * How long until a node without a `spec.providerID` is looked at again, ms; also the cap of the retry backoff
   * after a failed write. Default 30 000, the seed's `AddAfter` delay.
   */
  readonly recheckAfterMs?: number;
  /** Nodes handled at once (the seed's `WorkerCount`). Default {@link DEFAULT_WORKERS}. */
  readonly workers?: number;
  /** The field manager of the label patch. Default {@link DEFAULT_FIELD_MANAGER}. */
  readonly fieldManager?: string;
  /**
   * Records the Events. Default: a recorder of its own (`reportingController` {@link DEFAULT_REPORTING_CONTROLLER}),
   * closed (flushed) when the labeler completes. A recorder given here belongs to the caller: it is not closed, and
   * its failures are the caller's to report.
   */
  readonly recorder?: EventRecorder;
  /** The `reportingInstance` of the labeler's own recorder. Default: the recorder's (`<controller>-<hostname>`). */
  readonly reportingInstance?: string;
  /** Where the controller's lines go. Default `console.log`. */
  readonly print?: (line: string) => void;
  /** Stops intake, drains in-flight reconciles and flushes the Events, then the stream completes. */
  readonly stop$?: Observable<unknown>;
  /** Scheduler for every delay (tests use virtual time). Default `monotonicScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Uniform samples in [0, 1) for the conflict retry's jitter and the Event names. Default `Math.random`. */
  readonly random?: () => number;
  /** Replaces the node informer, e.g. one fed by a scripted source in tests, or one shared with other controllers. */
  readonly nodes?: Informer<V1Node>;
}

/**
 * Options of `nodeLabelerController`: those of `nodeLabeler` less what the manager provides (the shared informer,
 * its event recorder, its graceful stop and its scheduler).
 */
export type NodeLabelerControllerOptions = Omit<
  NodeLabelerOptions,
  'nodes' | 'recorder' | 'reportingInstance' | 'stop$' | 'scheduler'
>;

/** The options with their defaults filled in. */
export interface NodeLabelerSettings {
  readonly providerIdPrefix: string;
  readonly label: NodeLabel;
  readonly recheckAfterMs: number;
  readonly workers: number;
  readonly fieldManager: string;
  readonly print: (line: string) => void;
}

/**
 * Fills in the defaults and checks every option, so a bad one is a clear error when the labeler is built rather
 * than a 422 on every node later.
 *
 * # Guarantees
 * - Throws a `TypeError` naming the option for an empty prefix or field manager, or a label the API server would
 *   refuse (with the server's own wording), and a `RangeError` for a delay or worker count out of range.
 */
export function resolveOptions(options: NodeLabelerOptions): NodeLabelerSettings {
  const { providerIdPrefix } = options;
  if (typeof providerIdPrefix !== 'string' || providerIdPrefix === '') {
    throw new TypeError(
      `nodeLabeler: providerIdPrefix must be a non-empty string, got ${JSON.stringify(providerIdPrefix)}`,
    );
  }
  const label = options.label ?? DEFAULT_LABEL;
  checkLabel(label);
  const recheckAfterMs = options.recheckAfterMs ?? DEFAULT_RECHECK_AFTER_MS;
  if (typeof recheckAfterMs !== 'number' || !Number.isFinite(recheckAfterMs) || recheckAfterMs <= 0) {
    throw new RangeError(
      `nodeLabeler: recheckAfterMs must be a finite number of ms > 0, got ${String(recheckAfterMs)}`,
    );
  }
  const workers = options.workers ?? DEFAULT_WORKERS;
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError(`nodeLabeler: workers must be an integer >= 1, got ${String(workers)}`);
  }
  const fieldManager = options.fieldManager ?? DEFAULT_FIELD_MANAGER;
  if (typeof fieldManager !== 'string' || fieldManager === '') {
    throw new TypeError(`nodeLabeler: fieldManager must be a non-empty string, got ${JSON.stringify(fieldManager)}`);
  }
  return {
    providerIdPrefix,
    label,
    recheckAfterMs,
    workers,
    fieldManager,
    print: options.print ?? ((line) => console.log(line)),
  };
}

/** A label is valid when `key=value` parses as a label selector requiring exactly that key and value. */
function checkLabel(label: NodeLabel): void {
  const { key, value } = label;
  if (typeof key !== 'string' || typeof value !== 'string') {
    throw new TypeError(`nodeLabeler: label must be { key: string, value: string }, got ${JSON.stringify(label)}`);
  }
  let parsed;
  try {
    parsed = selectors.parseLabelSelector(`${key}=${value}`);
  } catch (error) {
    throw new TypeError(`nodeLabeler: invalid label ${key}=${value}: ${(error as Error).message}`, { cause: error });
  }
  const [only] = parsed;
  const exact =
    parsed.length === 1 &&
    only !== undefined &&
    only.key === key &&
    only.operator === 'In' &&
    only.values.length === 1 &&
    only.values[0] === value;
  if (!exact) throw new TypeError(`nodeLabeler: invalid label ${key}=${value}: not a single label key and value`);
}
