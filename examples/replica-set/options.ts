/**
 * The PodSet controller's options, their defaults and their validation.
 * @module
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type { EventRecorder, InformerFactory } from '../../src/index.js';
import { EXPECTATIONS_TIMEOUT_MS } from './expectations.js';
import { DEFAULT_BURST_REPLICAS } from './sync-podset.js';

/** kube-controller-manager's `--concurrent-replicaset-syncs` default: PodSets synced at once. */
export const DEFAULT_WORKERS = 5;

/** The field manager of every write (recorded in `managedFields`). */
export const DEFAULT_FIELD_MANAGER = 'rxkube-replica-set';

/** Options of `replicaSet` (standalone) and, less what the manager provides, of `replicaSetController`. */
export interface ReplicaSetOptions {
  /** Watch PodSets and Pods in this namespace only. Default: every namespace, as kube-controller-manager. */
  readonly namespace?: string;
  /** PodSets synced at once. Default {@link DEFAULT_WORKERS}. */
  readonly workers?: number;
  /** At most this many Pods created or deleted per sync. Default 500 (`BurstReplicas`). */
  readonly burstReplicas?: number;
  /** How long expectations may hold a PodSet back, ms. Default 5 minutes (`ExpectationsTimeout`). */
  readonly expectationsTimeoutMs?: number;
  /** The field manager of every write. Default {@link DEFAULT_FIELD_MANAGER}. */
  readonly fieldManager?: string;
  /** Where the controller's lines go. Default `console.log`. */
  readonly print?: (line: string) => void;
  /**
   * Records Events about PodSets (`SuccessfulCreate`, `FailedCreate`, `SuccessfulDelete`, `FailedDelete`), as the
   * Go controller's `PodControl` does. Standalone, none are recorded unless one is given; it stays the caller's
   * (not closed). Under a manager, its recorder is used.
   */
  readonly recorder?: EventRecorder;
  /** Stops intake and drains in-flight syncs, then the stream completes. */
  readonly stop$?: Observable<unknown>;
  /** Scheduler for every delay and clock reading (tests use virtual time). Default `monotonicScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Where the PodSet and Pod informers come from, e.g. a factory over scripted sources. Default: a new one. */
  readonly informers?: InformerFactory;
  /** Uniform samples in [0, 1): the status write's conflict-retry jitter and the informers' backoff jitter. Default `Math.random`. */
  readonly random?: () => number;
  /**
   * Read-your-own-writes: a sync starts only once the caches show what the PodSet's last sync wrote (its Pod
   * creations and deletions, its status), or `maxWait` passes (default 5 s). `false`: expectations alone, as
   * kube-controller-manager before v1.36. Default on.
   */
  readonly readYourWrites?: boolean | { readonly maxWait?: number };
}

/** Options of `replicaSetController`: the manager brings the informers, the recorder, the stop and the scheduler. */
export type ReplicaSetControllerOptions = Omit<ReplicaSetOptions, 'recorder' | 'stop$' | 'scheduler' | 'informers'>;

/** The options with their defaults filled in. */
export interface ReplicaSetSettings {
  readonly namespace: string | undefined;
  readonly workers: number;
  readonly burstReplicas: number;
  readonly expectationsTimeoutMs: number;
  readonly fieldManager: string;
  readonly print: (line: string) => void;
  /** The bound of read-your-own-writes, ms (`undefined`: the default), or `false`: off. */
  readonly readYourWrites: number | undefined | false;
}

/**
 * Fills in the defaults and checks every option, so a bad one is a clear error when the controller is defined.
 *
 * # Guarantees
 * - Throws a `RangeError` naming the option for a worker count or burst that is not an integer >= 1, or a timeout
 *   that is not a number of ms > 0, and a `TypeError` for an empty namespace or field manager.
 */
export function resolveOptions(options: ReplicaSetOptions): ReplicaSetSettings {
  const workers = options.workers ?? DEFAULT_WORKERS;
  if (!Number.isInteger(workers) || workers < 1)
    throw new RangeError(`replicaSet: workers must be an integer >= 1, got ${String(workers)}`);
  const burstReplicas = options.burstReplicas ?? DEFAULT_BURST_REPLICAS;
  if (!Number.isInteger(burstReplicas) || burstReplicas < 1) {
    throw new RangeError(`replicaSet: burstReplicas must be an integer >= 1, got ${String(burstReplicas)}`);
  }
  const expectationsTimeoutMs = options.expectationsTimeoutMs ?? EXPECTATIONS_TIMEOUT_MS;
  if (
    typeof expectationsTimeoutMs !== 'number' ||
    !(expectationsTimeoutMs > 0) ||
    !Number.isFinite(expectationsTimeoutMs)
  ) {
    throw new RangeError(
      `replicaSet: expectationsTimeoutMs must be a finite number of ms > 0, got ${String(expectationsTimeoutMs)}`,
    );
  }
  const { namespace } = options;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
    throw new TypeError(
      `replicaSet: namespace must be a non-empty string when given, got ${JSON.stringify(namespace)}`,
    );
  }
  const fieldManager = options.fieldManager ?? DEFAULT_FIELD_MANAGER;
  if (typeof fieldManager !== 'string' || fieldManager === '') {
    throw new TypeError(`replicaSet: fieldManager must be a non-empty string, got ${JSON.stringify(fieldManager)}`);
  }
  const ryow = options.readYourWrites ?? true;
  const maxWait = typeof ryow === 'object' && ryow !== null ? ryow.maxWait : undefined;
  if (
    typeof ryow !== 'boolean' &&
    (typeof ryow !== 'object' ||
      ryow === null ||
      (maxWait !== undefined && !(typeof maxWait === 'number' && maxWait >= 0)))
  ) {
    throw new RangeError(
      `replicaSet: readYourWrites must be a boolean or { maxWait: ms >= 0 }, got ${JSON.stringify(ryow)}`,
    );
  }
  return {
    namespace,
    workers,
    burstReplicas,
    expectationsTimeoutMs,
    fieldManager,
    print: options.print ?? ((line) => console.log(line)),
    readYourWrites: ryow === false ? false : maxWait,
  };
}
