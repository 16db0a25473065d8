/**
 * rxkube: Kubernetes controllers as RxJS pipelines.
 *
 * Layers, top to bottom: `listWatch` (the reflector), `Store` snapshots reduced with Immer, informers (shared,
 * ref-counted caches), triggers and predicates, and the `reconcile` operator; `controller()` composes them in
 * controller-runtime's shape; `leaderElection` gates them on a Lease; `manager()` runs them in production.
 * `resourceClient` is the write path reconcile functions use, and `eventRecorder` records their Events. See
 * `docs/design.md` for the contracts.
 *
 * This module is the API a controller author needs, listed name by name. What someone extending rxkube needs
 * (transports, the reflector, store reducers, custom informer sources, health and warning routing, hosts' plumbing)
 * is in `rxkube/extend`; the test kit is `rxkube/testing`. No name is exported by two of them. What none of them
 * exports is internal and may change without notice. The API reports in `api/` record all three, and CI fails when
 * one changes unreviewed; `docs/api.md` says what lives where, and why.
 * @module rxkube
 * @packageDocumentation
 */
import './runtime/node-version.js';

// The default of every option, in one frozen object.
export { defaults } from './defaults/index.js';

// Where the cluster is, which resource, and object keys.
export type { Connection, StatusCause, StatusDetails } from './transport/index.js';
export type { ResourceRef } from './resources/index.js';
export { MissingNameError, keyFor, objectKey } from './objects/index.js';

// Errors from the API server and the network.
export {
  ApiError, TransportError, isAlreadyExists, isBadRequest, isConflict, isExpired, isForbidden, isInvalid, isNotFound, isServerError,
  isTooManyRequests, isUnauthorized,
} from './transport/index.js';
export { UnknownResourceError } from './resources/index.js';

// Label and field selectors.
export {
  SelectorParseError, escapeFieldValue, formatFieldSelector, formatLabelSelector, labelSelectorFromObject, matchesFields,
  matchesLabels, parseFieldSelector, parseLabelSelector,
} from './selectors/index.js';
export type { FieldRequirement, FieldSelector, LabelRequirement, LabelSelector } from './selectors/index.js';

// Informers: shared caches as Observables, their snapshots and their connection status.
export { informer, informerFactory } from './informer/index.js';
export type {
  DeltaSource, Informer, InformerEvent, InformerFactory, InformerFactoryOptions, InformerOptions, InformerProblem,
  InformerProblemReason, InformerWatchOptions,
} from './informer/index.js';
export { Store } from './store/index.js';
export { ListWatchError } from './watch/index.js';
export type { WatchFailure, WatchStatus } from './watch/index.js';

// Triggers and predicates: informer events to keys.
export { KeyMappingError, mapKeys, toKeys, toOwnerKeys } from './controller/triggers/index.js';
export type { KeyMapping, ToOwnerKeysOptions, TriggerOperator, TriggerOptions } from './controller/triggers/index.js';
export {
  PredicateError, and, annotationsChanged, eventType, generationChanged, labelsChanged, not, or, predicate,
  resourceVersionChanged,
} from './controller/predicates/index.js';
export type { EventPredicate, EventTest, PredicateLike, PredicateOptions } from './controller/predicates/index.js';

// The reconcile operator and its rate limiters.
export {
  InvalidReconcileResultError, ReconcileAbortedError, ReconcileCancelledError, ReconcileTimeoutError, TerminalError,
  exponentialRateLimiter, fastSlowRateLimiter, maxOfRateLimiter, reconcile, tokenBucketRateLimiter,
} from './controller/index.js';
export { HIGH_PRIORITY, LOW_PRIORITY, NORMAL_PRIORITY } from './controller/index.js';
export type { AgingOptions } from './controller/index.js';
export type {
  ExponentialOptions, FastSlowOptions, Lookup, RateLimiter, ReconcileEvent, ReconcileFn, ReconcileKeyFn, ReconcileKeyRequest,
  ReconcileMetrics, ReconcileQueueView,
  ReconcileLookupOptions, ReconcileOptions, ReconcileOutput, ReconcileRequest, ReconcileResult, ReconcileTrigger, RequeueAfter,
  TokenBucketOptions,
} from './controller/index.js';

// The wall clock, for the timestamps a reconcile writes (every part measures durations on a monotonic clock).
export { wallClockNow } from './clock/index.js';

// A controller written once against one context, the controller-runtime-shaped builder, and a host of its own.
export { startController } from './controller/context/index.js';
export type {
  ContextReconcile, ControllerContext, ControllerDefinition, StartControllerOptions,
} from './controller/context/index.js';
export { InformerHealthError, SyncTimeoutError, controller } from './controller/builder/index.js';
export type {
  Controller, ControllerOptions, InformerHealth, LabelledProblem, UnsyncedInformer, WatchSource, WatchesSpec,
} from './controller/builder/index.js';

// Leader election on a coordination.k8s.io/v1 Lease (a reconcile gate).
export { leaderElection } from './leader/index.js';
export type { LeaderElectionOptions, LeaderEvent } from './leader/index.js';

// The write path: the typed resource client, mutate, server-side apply.
export { ClientScopeError, applyConflicts, resourceClient } from './client/index.js';
export type {
  ApplyConflict, ApplyOptions, ClientListOptions, DeleteCollectionOptions, DeleteOptions, GetOptions, MutateOptions, ObjectList,
  ObjectRef, PartialObject, Patch, Recipe, ResourceClient, ResourceClientOptions, RetryPolicy, StatusObject, StoreSource,
  WriteOptions,
} from './client/index.js';

// Owner references and finalizers.
export {
  AlreadyOwnedError, FinalizerNameError, OwnerReferenceError, controllerOf, controllerReference, finalizer, isControlledBy,
  setControllerReference,
} from './client/index.js';
export type { FinalizerHandlers, FinalizerRequest, Ownable, Owner } from './client/index.js';

// Status conditions, kept as apimachinery's meta.SetStatusCondition keeps them.
export {
  conditionTime, findStatusCondition, isStatusConditionFalse, isStatusConditionPresentAndEqual, isStatusConditionTrue,
  removeStatusCondition, setStatusCondition,
} from './client/index.js';
export type { Condition, ConditionHolder, ConditionStatus, ConditionUpdate } from './client/index.js';

// Events: the recorder of events.k8s.io/v1 Events.
export { InvalidEventError, eventRecorder } from './client/index.js';
export type { EventDetails, EventRecorder, EventRecorderOptions, EventSubject } from './client/index.js';

// The manager: many controllers, one cache, leader election, probes, metrics, logs, graceful stop.
export { jsonLogger, manager, silentLogger } from './manager/index.js';
export type {
  HealthOptions, JsonLoggerOptions, ManagerEvent, ManagerLeaderElection, ManagerLogger, ManagerOptions, MetricsOptions,
} from './manager/index.js';
