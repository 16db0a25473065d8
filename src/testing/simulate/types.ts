/**
 * The vocabulary of simulations: the caches to check, the workload, the faults and the invariants.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Arbitrary } from 'fast-check';
import type { Informer, ReconcileEvent, ResourceRef } from 'rxkube';

/** An informer whose cache must equal the server at the end of a simulation. */
export interface CacheUnderTest {
  /** The kind the informer watches: the server's objects of it (in `namespace`, when given) are the reference. */
  readonly resource: ResourceRef;
  /**
   * The informer whose `current()` is compared with the server, key by key and resourceVersion by resourceVersion,
   * after the settle time. Give the `namespace` it watches, or objects of other namespaces count as missing.
   */
  readonly informer: Informer<KubernetesObject>;
  /** The informer's namespace, when it watches one. */
  readonly namespace?: string;
}

/**
 * One thing a user does to the cluster:
 * - `create` an object (a taken name answers 409, which the trace shows);
 * - `update` one by a JSON merge patch (`null` deletes a field; a missing object answers 404);
 * - `delete` one.
 */
export type WorkloadStep<T extends KubernetesObject = KubernetesObject> =
  | {
      /** Create an object (`POST`). */
      readonly op: 'create';
      /** The object to create, namespace included for a namespaced kind (it is sent as given). */
      readonly object: T;
    }
  | {
      /** Update an object by a JSON merge patch (`PATCH`). */
      readonly op: 'update';
      /** The object's `metadata.name`. */
      readonly name: string;
      /**
       * The object's namespace: required for a namespaced kind (without it the step fails, as the trace shows); omit
       * for a cluster-scoped one.
       */
      readonly namespace?: string;
      /** The JSON merge patch (RFC 7386): `null` deletes a field, arrays are replaced whole. */
      readonly patch: Readonly<Record<string, unknown>>;
    }
  | {
      /** Delete an object (`DELETE`). */
      readonly op: 'delete';
      /** The object's `metadata.name`. */
      readonly name: string;
      /**
       * The object's namespace: required for a namespaced kind (without it the step fails, as the trace shows); omit
       * for a cluster-scoped one.
       */
      readonly namespace?: string;
    };

/** Where a workload's steps come from. */
export interface Workload<T extends KubernetesObject = KubernetesObject> {
  /** The kind every step of this workload is sent to. */
  readonly resource: ResourceRef;
  /** The user's generator of steps (a fast-check arbitrary): draw names from a small pool so steps meet. */
  readonly step: Arbitrary<WorkloadStep<T>>;
  /** At most this many steps per run (default 50); at least `minSteps` (default 0). */
  readonly maxSteps?: number;
  /** At least this many steps per run (default 0); shrinking never goes below it. Keep it at most `maxSteps`. */
  readonly minSteps?: number;
}

/**
 * The faults a simulation draws, each at a random virtual time:
 * - `dropWatches`: every open watch ends (cleanly, or cut);
 * - `compact`: history is compacted, so resumed watches get 410 and relist;
 * - `conflict`: the next update or delete of one object the workload steps name (stored yet or not) answers 409;
 * - `failWrites`: the next 1–3 writes answer 500 or 429 (with Retry-After);
 * - `latency`: every answer is delayed for a while;
 * - `stallWatches`: open watches send nothing for a while, then flush;
 * - `malformedLine`: a bad line is written into every open watch;
 * - `restart`: every connection is cut.
 *
 * And the faults of the controller's own view and life ({@link CONTROLLER_FAULT_KINDS}), the bug classes of Sieve
 * (OSDI '22):
 * - `staleView`: the controller's watches lag (by virtual time or by resourceVersions) and its lists read the past,
 *   for a while; optionally after a relist back in time (stale state);
 * - `crash`: the controller crashes at a drawn write of its own and restarts from a fresh manager (intermediate
 *   states);
 * - `mergeEvents`: the controller's watches merge consecutive changes of an object and reorder watches against
 *   each other, for a while (unobserved states).
 */
export type FaultKind =
  | 'dropWatches'
  | 'compact'
  | 'conflict'
  | 'failWrites'
  | 'latency'
  | 'stallWatches'
  | 'malformedLine'
  | 'restart'
  | 'staleView'
  | 'crash'
  | 'mergeEvents';

/**
 * The faults of the cluster that a simulation draws by default. The controller faults
 * ({@link CONTROLLER_FAULT_KINDS}) are drawn when `faults.kinds` names them: adding them to the default would
 * change every seed's scenarios.
 */
export const FAULT_KINDS: readonly FaultKind[] = Object.freeze([
  'dropWatches',
  'compact',
  'conflict',
  'failWrites',
  'latency',
  'stallWatches',
  'malformedLine',
  'restart',
]);

/** The faults of the controller's view and life: stale views, crashes mid-reconcile, merged and reordered events. */
export const CONTROLLER_FAULT_KINDS: readonly FaultKind[] = Object.freeze(['staleView', 'crash', 'mergeEvents']);

/** Which faults a simulation draws, and how many. */
export interface FaultOptions {
  /** Default: all of {@link FAULT_KINDS}. */
  readonly kinds?: readonly FaultKind[];
  /** At most this many faults per run (default 20); at least `min` (default 0). */
  readonly max?: number;
  /** At least this many faults per run (default 0); shrinking never goes below it. Ignored when `kinds` is empty. */
  readonly min?: number;
}

/** One fault of a scenario, as drawn. */
export type FaultStep =
  | {
      /** Every open watch ends. */
      readonly fault: 'dropWatches';
      /** `clean` finishes the watch's response; `abrupt` cuts the connection mid-stream. */
      readonly mode: 'clean' | 'abrupt';
    }
  | {
      /** History is compacted up to now: resumed watches get 410 Gone and relist. */
      readonly fault: 'compact';
    }
  | {
      /** The next update or delete of one object answers 409 Conflict; nothing is stored. */
      readonly fault: 'conflict';
      /**
       * Which object, as an index (0 to 1000) into the sorted, distinct objects the scenario's workload steps name,
       * taken modulo their number; with no such object the fault does nothing (the trace says so).
       */
      readonly pick: number;
    }
  | {
      /** The next `count` writes to any object fail; nothing is stored. */
      readonly fault: 'failWrites';
      /** The HTTP status they answer: 500, or 429 Too Many Requests with a Retry-After. */
      readonly status: 500 | 429;
      /** How many writes fail: 1 to 3. */
      readonly count: number;
    }
  | {
      /** Every answer of the cluster is delayed for a while. */
      readonly fault: 'latency';
      /** The delay of each answer, virtual ms (1 to 500). */
      readonly ms: number;
      /**
       * How long the latency lasts, virtual ms (1 to 60 000); then it is set back to 0, which also ends any later
       * latency fault still in force.
       */
      readonly forMs: number;
    }
  | {
      /** Open watches send nothing for a while, then flush what they held, in order. */
      readonly fault: 'stallWatches';
      /** How long the watches stall, virtual ms (1 to 60 000). */
      readonly ms: number;
    }
  | {
      /** One malformed line is written into every open watch. */
      readonly fault: 'malformedLine';
    }
  | {
      /** Every connection (in-flight requests and watches) is cut at once. */
      readonly fault: 'restart';
    }
  | {
      /**
       * For `forMs`, the controller sees the cluster as a lagging apiserver serves it: each watch event arrives
       * `lagMs` late, or once the truth is `versions` resourceVersions past it (`watchLag`), in order; each list is
       * served as of `versions` resourceVersions ago. Writes go to the truth and conflict as they would.
       */
      readonly fault: 'staleView';
      /** How late each watch event arrives, virtual ms (1 to 30 000), with `watchLag` `time`. */
      readonly lagMs: number;
      /** How many resourceVersions behind the truth each list (and, with `watchLag` `versions`, each watch) is served (1 to 10). */
      readonly versions: number;
      /** How long the view is stale, virtual ms (1 to 60 000); it heals at `duration` at the latest. */
      readonly forMs: number;
      /**
       * A failover first: the controller's open watches end with 410 Expired, so it relists from the lagging view,
       * back in time from what it had seen.
       */
      readonly relist: boolean;
      /**
       * How the watches lag. `time` (the default): each event arrives `lagMs` late. `versions`: each event is held
       * until the truth is `versions` resourceVersions past it (a write elsewhere moves the truth on), or until the
       * view heals; `lagMs` does not apply then.
       */
      readonly watchLag?: 'time' | 'versions';
    }
  | {
      /**
       * The controller crashes at its `write`-th own write from now (0: the next one; Lease writes do not count), and
       * restarts `restartMs` later from a fresh manager over the same cluster: caches, queues and every in-flight run
       * are gone, what reached the server stays.
       */
      readonly fault: 'crash';
      /** Which write, counted from the fault: 0 to 3. */
      readonly write: number;
      /**
       * `notSent`: the crash comes before the write leaves; `sent`: the write is stored and its answer seen, and
       * nothing after it leaves; `answerLost`: the write is stored and its answer never arrives.
       */
      readonly mode: 'notSent' | 'sent' | 'answerLost';
      /** Virtual ms from the crash to the restart (0 to 10 000). */
      readonly restartMs: number;
    }
  | {
      /**
       * For `forMs`, the controller's watches hold their events, then deliver only each object's last state (an
       * object added and deleted meanwhile is never seen), each watch at its own time up to `spreadMs` after the
       * window, so events of different watches arrive reordered. The order within one watch is the server's.
       */
      readonly fault: 'mergeEvents';
      /** How long events are merged, virtual ms (1 to 30 000); it ends at `duration` at the latest. */
      readonly forMs: number;
      /** How far apart the watches deliver after the window, virtual ms (0 to 1 000). */
      readonly spreadMs: number;
    };

/** What the invariants see at the end of a run. */
export interface SimulationWorld {
  /** Server state: every stored object of a resource (of one namespace when given), sorted by key. */
  server(resource: ResourceRef, namespace?: string): KubernetesObject[];
  /** The controller's ReconcileEvents, in order. */
  readonly events: readonly ReconcileEvent[];
  /** The run's trace so far: workload steps, faults, their outcomes and the controller's decisions. */
  readonly trace: readonly string[];
  /** The virtual time of the check, ms. */
  readonly now: number;
}

/** A check: `true`/`undefined` holds; `false`, a string (the reason) or a throw is a violation. */
export type Check = (world: SimulationWorld) => boolean | string | void;

/** What must hold at the end of a run. */
export interface Invariants {
  /** Every `caches` informer's cache holds exactly the server's objects, at the same resourceVersions. Default true. */
  readonly cachesMatchServer?: boolean;
  /** The desired state is reached (convergence). */
  readonly desired?: Check;
  /** More named checks over the server state and the trace. */
  readonly checks?: Readonly<Record<string, Check>>;
  /**
   * Eventually stable: the controller writes nothing (Lease renewals aside) in the last `stableFor` virtual ms
   * before the check; keep it below `settle`, the time faults leave it to converge.
   */
  readonly stableFor?: number;
  /**
   * Idempotence: after the check, a fresh controller (a new manager, no faults) is started over the final state
   * and must write nothing within `idempotentWithin` virtual ms: its reconciles of objects already in their desired
   * state are no-ops.
   */
  readonly idempotentWithin?: number;
  /**
   * Crash safety: a run with `crash` faults must end in the same `crashSafe(world)` (compared as JSON) as the same
   * run without them. Return what the desired state consists of (names, specs), not uids or resourceVersions.
   */
  readonly crashSafe?: (world: SimulationWorld) => unknown;
  /**
   * No destructive action on stale reads: no delete the server carries out while the controller's view is stale or
   * its events merged, of an object that the same scenario with a true view (its `staleView` and `mergeEvents`
   * faults left out, run once more) never deletes; unless the delete carries a resourceVersion precondition (the
   * server would refuse a stale one) or the function given here allows its path.
   */
  readonly noStaleDeletes?: boolean | ((path: string) => boolean);
}
