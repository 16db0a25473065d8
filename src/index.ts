/**
 * rxkube: Kubernetes controllers as RxJS pipelines.
 *
 * Layers, top to bottom: `listWatch` (the reflector), `Store` snapshots reduced with Immer, informers (shared,
 * ref-counted caches), triggers and predicates, and the `reconcile` operator; `controller()` composes them in
 * controller-runtime's shape; `leaderElection` gates them on a Lease; `manager()` runs them in production.
 * `resourceClient` is the write path reconcile functions use, and `eventRecorder` records their Events. See
 * `docs/design.md` for the contracts.
 *
 * This module is the API a controller author needs, listed name by name. A family of helpers that Go keeps in a
 * package of its own is one namespace here, named as a Go user looks for it: `apiErrors` (client-go's `apierrors`),
 * `conditions` (apimachinery's `meta` condition helpers), `owners` (controller-runtime's `controllerutil`),
 * `predicates` (controller-runtime's `predicate`), `rateLimiters` (client-go's `workqueue` limiters) and `selectors`
 * (apimachinery's `labels` and `fields`); the options of the resource client's calls are `ResourceClient.GetOptions`
 * and its siblings. What someone extending rxkube needs (transports, the reflector, store reducers, custom informer
 * sources, health and warning routing, hosts' plumbing) is in `rxkube/extend`; the test kit is `rxkube/testing`. No
 * name is exported by two of them. What none of them exports is internal and may change without notice. The API
 * reports in `api/` record all three, and CI fails when one changes unreviewed; `docs/api.md` says what lives where,
 * and why.
 * @module rxkube
 * @packageDocumentation
 */
import './runtime/node-version.js';

// The default of every option, in one frozen object.
export { defaults } from './defaults/index.js';

// Where the cluster is, which resource, objects and their keys.
export type { Connection } from './transport/index.js';
export type { ResourceRef } from './resources/index.js';
export { keyFor, objectKey } from './objects/index.js';
export type { ObjectLike } from './objects/index.js';

// Errors from the API server and the network; apiErrors reads them (client-go's apierrors: apiErrors.isNotFound).
export { ApiError, TransportError, apiErrors } from './transport/index.js';
export { UnknownResourceError } from './resources/index.js';

// Label and field selectors (apimachinery's labels and fields): selectors.parseLabelSelector, .matchesLabels, ...
export { selectors } from './selectors/index.js';

// KEP-5866 hash sharding (shardSelector, FNV-1a ranges): sharding.parseShardSelector, .splitHashSpace, ...
export { sharding } from './sharding/index.js';

// Informers: shared caches as Observables, their snapshots and their connection status.
export { informer, informerFactory } from './informer/index.js';
export type {
  Informer,
  InformerEvent,
  InformerFactory,
  InformerFactoryOptions,
  InformerOptions,
  InformerProblem,
  InformerProblemReason,
  InformerWatchOptions,
} from './informer/index.js';
export { Store } from './store/index.js';
export { ListWatchError } from './watch/index.js';
export type { WatchFailure, WatchStatus } from './watch/index.js';

// Triggers: informer events to keys. Predicates (controller-runtime's predicate): predicates.generationChanged, .and, ...
export { KeyMappingError, mapKeys, toKeys, toOwnerKeys } from './controller/triggers/index.js';
export type { KeyMapping, ToOwnerKeysOptions, TriggerOperator, TriggerOptions } from './controller/triggers/index.js';
export { predicates } from './controller/predicates/index.js';

// The reconcile operator, and its rate limiters (client-go's workqueue limiters): rateLimiters.exponential, ...
export {
  ReconcileAbortedError,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  TerminalError,
  priorities,
  rateLimiters,
  reconcile,
} from './controller/index.js';
export type { AgingOptions, KeyGate, ReservedSlots } from './controller/index.js';
export type {
  Lookup,
  RateLimiter,
  ReconcileEvent,
  ReconcileFn,
  ReconcileKeyFn,
  ReconcileKeyRequest,
  ReconcileLookupOptions,
  ReconcileOptions,
  ReconcileOutput,
  ReconcileRequest,
  ReconcileResult,
  ReconcileTrigger,
  RequeueAfter,
} from './controller/index.js';

// Read-your-own-writes in a pipeline written by hand (controller() does it by itself): ownWrites.readYourWrites, ...
export { ownWrites } from './controller/own-writes/index.js';

// The wall clock, for the timestamps a reconcile writes (every part measures durations on a monotonic clock).
export { wallClockNow } from './clock/index.js';

// A controller written once against one context, the controller-runtime-shaped builder, and a host of its own.
export { startController } from './controller/context/index.js';
export type {
  ContextReconcile,
  ControllerContext,
  ControllerDefinition,
  ControllerShards,
  StartControllerOptions,
} from './controller/context/index.js';
export { InformerHealthError, SyncTimeoutError, controller } from './controller/builder/index.js';
export type {
  Controller,
  ControllerOptions,
  InformerHealth,
  LabelledProblem,
  UnsyncedInformer,
  WatchSource,
  WatchesSpec,
} from './controller/builder/index.js';

// Leader election on a coordination.k8s.io/v1 Lease (a reconcile gate).
export { leaderElection } from './leader/index.js';
export type { LeaderElectionOptions, LeaderEvent } from './leader/index.js';

// The write path: the typed resource client (its calls' options are ResourceClient.GetOptions, ...), mutate, apply.
export { resourceClient } from './client/index.js';
export type { Recipe, ResourceClient } from './client/index.js';

// Owner references (controller-runtime's controllerutil): owners.setControllerReference, ...; and finalizers.
export { finalizer, owners } from './client/index.js';
export type { FinalizerHandlers, FinalizerRequest } from './client/index.js';

// Status conditions, kept as apimachinery's meta.SetStatusCondition keeps them: conditions.set, .find, .isTrue, ...
export { conditions } from './client/index.js';

// Events: the recorder of events.k8s.io/v1 Events.
export { eventRecorder } from './client/index.js';
export type { EventDetails, EventRecorder, EventRecorderOptions, EventSubject } from './client/index.js';

// The manager: many controllers, one cache, leader election, probes, metrics, logs, graceful stop.
export { jsonLogger, manager, silentLogger } from './manager/index.js';
export type {
  HealthOptions,
  JsonLoggerOptions,
  ManagerEvent,
  ManagerLeaderElection,
  ManagerLogger,
  ManagerOptions,
  ManagerSharding,
  MetricsOptions,
} from './manager/index.js';
// What a sharded replica holds (the manager's `shards` event).
export type { ShardState } from './shards/index.js';

// Derived views over informers (views.join, views.owned, views.aggregate, ...), kept incrementally; each an informer.
export { views } from './views/index.js';
// Triggers from outside Kubernetes: a webhook, a timer, a message queue, another controller's outcomes.
export { toTriggers } from './controller/triggers/index.js';
export type { ToTriggersOptions } from './controller/triggers/index.js';
