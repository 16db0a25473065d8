/**
 * The one context a controller is written against, and a controller written once as a function of it: every host
 * (the manager, `startController`, `runController`, `simulate`) provides the same context.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';
import type { EventRecorder, ResourceClient } from '../../client/index.js';
import type { Informer, InformerFactory, InformerWatchOptions } from '../../informer/index.js';
import type { Connection } from '../../transport/index.js';
import type { ResourceRef } from '../../watch/index.js';
import type { KeyGate, ReconcileLookupOptions, ReconcileOptions } from '../reconcile/index.js';
import type { ReconcileEvent, ReconcileFn, ReconcileKeyFn, ReconcileTrigger } from '../reconcile/index.js';
import type { OwnWrites } from '../own-writes/index.js';
import type { WarningHandler } from 'rxkube/extend';

/**
 * `reconcile` with the host's gate, shutdown, scheduler and instrumentation applied; same overloads as `reconcile`.
 *
 * # Guarantees
 * - The options' own `gate` still applies: runs start only while both it and the host's gate are open.
 * - The options' own `stop$` still applies: either it or the host's shutdown starts the drain.
 * - `scheduler` and `drainTimeout` default to the host's.
 */
export interface ContextReconcile {
  /** `reconcile` with a `lookup`: the reconcile function receives the latest object of its key. */
  <T>(
    fn: ReconcileFn<T>,
    options: ReconcileLookupOptions<T>,
  ): OperatorFunction<ReconcileTrigger | string, ReconcileEvent>;
  /** `reconcile` without a `lookup`: the reconcile function receives the key only. */
  (
    fn: ReconcileKeyFn,
    options?: ReconcileOptions & { readonly lookup?: undefined },
  ): OperatorFunction<ReconcileTrigger | string, ReconcileEvent>;
}

/**
 * Where a controller runs, as one value: the cluster, the shared caches, the clock and chance, the gate and the
 * shutdown, and where to report what the controller survives. The manager, `startController`, and the test kit's
 * `runController` and `simulate` each give a controller one of these, so a controller built only from its context
 * runs in all of them unchanged (`controller({ context, … })` takes it whole).
 *
 * # Guarantees (every host keeps them)
 * - `informers`, `client()` and `recorder` already use `scheduler`, `random` and `onWarning`: nothing needs
 *   threading through constructors.
 * - `informers` is shared by every controller of the host: one watch per resource and options.
 * - `reconcile` keeps every guarantee of `reconcile` and adds only the host's `gate`, `stop$`, `drainTimeout`,
 *   `scheduler` and instrumentation.
 * - `gate` is open while this controller may run: leadership under a manager with leader election (unless the
 *   controller opted out), always open elsewhere. `stop$` emits once when the host starts its graceful stop.
 */
export interface ControllerContext {
  /** The controller's name, unique within its host: the `controller` label of its metrics and logs. */
  readonly name: string;
  /** Where the cluster is: a client-node `KubeConfig` or any `Transport` (the test kit's virtual cluster). */
  readonly connection: Connection;
  /** The host's informer factory, shared by every controller it runs. */
  readonly informers: InformerFactory;
  /**
   * A resource client on `connection` with the host's `scheduler`, `random` and `onWarning`; `options` add to them.
   * Its writes are remembered in `writes` (unless `options` name another `writeObserver`), so that the controller
   * reads its own writes and ignores their echoes: write through it, and pass each call the run's `signal`.
   */
  client<T extends KubernetesObject>(resource: ResourceRef, options?: ResourceClient.Options): ResourceClient<T>;
  /**
   * What this controller wrote through `client()`: the ledger read-your-own-writes waits on (`ownWrites.readYourWrites`) and
   * own-write filtering reads (`ownWrites.ignore`). `controller({ context })` uses it by itself.
   */
  readonly writes: OwnWrites;
  /**
   * The host's event recorder: under a manager, the manager's (its `reportingController` is the manager's name);
   * elsewhere one whose `reportingController` is the controller's name. Flushed when the host stops. `undefined`
   * when the host records no Events (`events: false`).
   */
  readonly recorder: EventRecorder | undefined;
  /** The `reconcile` operator to build with: the host's gate, shutdown and instrumentation added. */
  readonly reconcile: ContextReconcile;
  /**
   * The scheduler every timer of the controller runs on: virtual time under the test kit. Its `now()` measures
   * durations (a monotonic reading by default, which drifts from the wall clock); stamp what you write for the API
   * server or for people with `wallClockNow(context.scheduler)`, as `conditions.set` and the recorder do.
   */
  readonly scheduler: SchedulerLike;
  /** Uniform samples in [0, 1) for jitter: seeded under the test kit, so chance is part of the seed. */
  readonly random: () => number;
  /** Open while this controller may run (leadership, or always open). */
  readonly gate: Observable<boolean>;
  /** Whether this replica leads (replays the latest value); always `true` without leader election. */
  readonly leader$: Observable<boolean>;
  /** Emits once when the host starts its graceful stop: stop intake and drain. */
  readonly stop$: Observable<void>;
  /** How long in-flight runs may drain after `stop$`, ms. */
  readonly drainTimeout: number;
  /** The host's handler of the API server's warnings (already given to `informers`, `client()` and `recorder`). */
  readonly onWarning: WarningHandler;
  /** Receives errors the controller survives (an informer in trouble, a sync timeout): the host's logs or handler. */
  readonly reportError: (error: Error) => void;
  /**
   * Present when the host shards this controller across replicas (the manager's `sharding`): `reconcile` then runs
   * a key only while this replica holds the hash range of the key. `controller({ context })` hands it its primary
   * informer; a pipeline written by hand must do the same when the ranges hash uids.
   */
  readonly shards?: ControllerShards;
}

/**
 * A controller's part of its host's sharding: the per-key gate `context.reconcile` applies, and where the gate reads
 * the uids of keys.
 *
 * # Guarantees
 * - `keyGate` is open for a key only while this replica holds the hash range of the key's object's uid (read from the
 *   primary informer), or of the key's namespace, as the host hashes.
 * - `primary(informer)` returns an Observable that never emits; while it is subscribed, the gate remembers the uids
 *   of the primary's deleted keys, so the run after a delete happens on the replica of the deleted object's range.
 *
 * # Caveats
 * - Hashing uids, a key whose object this replica never cached (a trigger from an owned or watched object whose owner
 *   is not in the primary's cache) runs nowhere here: it waits, held, until the primary shows the object.
 */
export interface ControllerShards {
  /** What the host hashes. */
  readonly field: 'object.metadata.uid' | 'object.metadata.namespace';
  /** The gate `context.reconcile` applies beside the host's `gate`. */
  readonly keyGate: KeyGate;
  /**
   * Present when the host splits the primary server-side: the controller's primary informer of `resource`, listing
   * and watching only the ranges this replica holds (a range opens in `keyGate` once this informer has listed it).
   * `controller({ context })` uses it for a primary given by reference.
   */
  readonly informer?: <T extends KubernetesObject>(
    resource: ResourceRef,
    options?: InformerWatchOptions<T>,
  ) => Informer<T>;
  /** The controller's primary informer, where the uids of keys are read; subscribe while the controller runs. */
  primary(informer: {
    current(): { get(key: string): { readonly metadata?: { readonly uid?: string } } | undefined };
    readonly events$: Observable<{ readonly type: string; readonly key?: string; readonly object?: unknown }>;
  }): Observable<never>;
}

/**
 * A controller written once: a name and a function of its `ControllerContext` that returns its
 * `ReconcileEvent`s. Subscribing to what `start` returns starts the controller; unsubscribing stops it at once.
 * Run it under `manager({ controllers: [it] })`, alone with `startController(it, { connection })`, and in tests
 * with `runController(it, …)` and `simulate(it, …)` from `rxkube/testing`.
 *
 * ```ts
 * const pods: ControllerDefinition = {
 *   name: 'pods',
 *   start: (context) => controller({ context, for: { apiVersion: 'v1', kind: 'Pod' }, reconcile: ({ key }) => console.log(key) }),
 * };
 * ```
 *
 * # Caveats
 * - Take everything from the context (informers, clients, the recorder, `scheduler`, `random`): a controller that
 *   builds its own informer from a `KubeConfig`, or reads the wall clock, does not follow its host (no shared cache,
 *   no virtual time, no leadership).
 */
export interface ControllerDefinition {
  /**
   * Unique within a manager: the `controller` label of its metrics and the `controller` field of its logs; outside a
   * manager, the `reportingController` of its Events (so it must be a qualified name, such as `pods` or
   * `example.com/pods`, when it records any).
   */
  readonly name: string;
  /**
   * Whether runs wait for this replica to lead (controller-runtime's `NeedLeaderElection`). Default true; a
   * controller that opts out runs on every replica. Only a manager with leader election reads it.
   */
  readonly needLeaderElection?: boolean;
  /**
   * Builds the controller from its host's context; called once per run of the host. Build with `context.informers`,
   * `context.client()` and `context.reconcile` (or pass `context` to `controller()`).
   */
  readonly start: (context: ControllerContext) => Observable<ReconcileEvent>;
}
