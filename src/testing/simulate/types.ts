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
 */
export type FaultKind =
  | 'dropWatches'
  | 'compact'
  | 'conflict'
  | 'failWrites'
  | 'latency'
  | 'stallWatches'
  | 'malformedLine'
  | 'restart';

/** Every fault kind. */
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
}
