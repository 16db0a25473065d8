/**
 * rxkube: Kubernetes controllers as RxJS pipelines.
 *
 * Layers, top to bottom: `listWatch` (the reflector), `Store` snapshots reduced with Immer, informers (shared,
 * ref-counted caches), triggers and predicates, and the `reconcile` operator; `controller()` composes them in
 * controller-runtime's shape; `leaderElection` gates them on a Lease; `manager()` runs them in production.
 * `resourceClient` is the write path reconcile functions use, and `eventRecorder` records their Events. See
 * `docs/design.md` for the contracts.
 *
 * This module is the public API, listed name by name: what is not here is internal and may change without notice.
 * The API report in `api/rxkube.api.md` records it, and CI fails when it changes unreviewed.
 * @module rxkube
 * @packageDocumentation
 */
import './runtime/node-version.js';

// Object identity and selectors.
export { MissingNameError, keyFor, objectKey } from './objects/index.js';
export {
  SelectorParseError, checkSelectors, escapeFieldValue, formatFieldSelector, formatLabelSelector, labelSelectorFromObject,
  matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector,
} from './selectors/index.js';
export type { FieldRequirement, FieldSelector, LabelRequirement, LabelSelector, SelectorOptions } from './selectors/index.js';

// Backoff arithmetic (the shape of the `backoff` option).
export type { BackoffPolicy } from './backoff/index.js';

// Clocks: a monotonic default scheduler for durations, the wall clock for timestamps.
export { monotonicScheduler, wallClockNow } from './clock/index.js';
export type { WallClockScheduler } from './clock/index.js';

// The network seam and its errors.
export {
  API_WARNING_CODE, ApiError, RXKUBE_VERSION, TransportError, deduplicateWarnings, defaultUserAgent, expectBackslashKeys,
  isAlreadyExists, isBadRequest, isConflict, isExpired, isForbidden, isInvalid, isNotFound, isServerError, isTooManyRequests,
  isUnauthorized, kubeTransport, parseJson, parseWarningHeaders, printWarningOnce, programName, transportOf,
} from './transport/index.js';
export type {
  ApiWarning, Connection, KubeTransportOptions, QueryParams, RequestMethod, RequestOptions, StatusCause, StatusDetails, Transport, TransportRequest, TransportResponse,
  WarningHandler, WatchRequestOptions,
} from './transport/index.js';
export { UnknownResourceError, resolveResource } from './resources/index.js';
export type { ResolveResourceOptions, ResolvedResource, ResourceRef } from './resources/index.js';

// The reflector.
export { DEFAULT_WATCH_BACKOFF, ListWatchError, TERMINAL_CODES, WATCH_HEALTH_WARNING, listWatch, printWatchHealth } from './watch/index.js';
export type {
  HealthRoutingConnection, ListWatchOptions, WatchDelta, WatchEvent, WatchFailure, WatchHealthHandler, WatchHealthReport,
  WatchProblem, WatchProblemReason, WatchStatus,
} from './watch/index.js';

// The store.
export { NAMESPACE_INDEX, Store, reduceStore } from './store/index.js';
export type {
  Indexer, Indexers, ListOptions, ReduceStoreOptions, StoreChange, StoreOptions, StoreProblem, StoreUpdate,
} from './store/index.js';

// Informers.
export { claimHealth, coalesceBursts, informer, informerFactory, informerFromSource } from './informer/index.js';
export type {
  DeltaSource, Informer, InformerEvent, InformerFactory, InformerFactoryOptions, InformerOptions, InformerProblem,
  InformerProblemReason, InformerWatchOptions,
} from './informer/index.js';

// The reconcile operator and its rate limiters.
export {
  DEFAULT_BASE_DELAY_MS, DEFAULT_BURST, DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_MAX_DELAY_MS, DEFAULT_QPS,
  InvalidReconcileResultError, REQUEUE_REASON, RETRY_REASON, ReconcileAbortedError, ReconcileCancelledError,
  ReconcileTimeoutError, TerminalError, exponentialRateLimiter, fastSlowRateLimiter, maxOfRateLimiter, reconcile,
  tokenBucketRateLimiter,
} from './controller/index.js';
export type {
  ExponentialOptions, FastSlowOptions, Lookup, RateLimiter, ReconcileDropped, ReconcileEvent, ReconcileEventBase,
  ReconcileFailed, ReconcileFn, ReconcileKeyEvent, ReconcileKeyFn, ReconcileKeyRequest, ReconcileLookupOptions,
  ReconcileOptions, ReconcileOutput, ReconcileRejected, ReconcileReleased, ReconcileRequest, ReconcileRequeued,
  ReconcileResult, ReconcileRetrying, ReconcileStarted, ReconcileSucceeded, ReconcileTrigger, RequeueAfter,
  TokenBucketOptions,
} from './controller/index.js';

// Triggers and predicates.
export { KeyMappingError, mapKeys, toKeys, toOwnerKeys } from './controller/triggers/index.js';
export type { KeyMapping, ToOwnerKeysOptions, TriggerOperator, TriggerOptions } from './controller/triggers/index.js';
export {
  PredicateError, and, annotationsChanged, eventType, generationChanged, labelsChanged, not, or, predicate, reportError,
  resourceVersionChanged,
} from './controller/predicates/index.js';
export type { ErrorHandler, EventPredicate, EventTest, PredicateLike, PredicateOptions } from './controller/predicates/index.js';

// Leader election on a coordination.k8s.io/v1 Lease (a reconcile gate).
export {
  DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS, LEADER_JITTER_FACTOR, leaderElection,
} from './leader/index.js';
export type { LeaderElectionOptions, LeaderEvent, LeaderPhase } from './leader/index.js';

// A controller written once against one context, and its host on its own.
export { startController } from './controller/context/index.js';
export type { ContextReconcile, ControllerContext, ControllerDefinition, StartControllerOptions } from './controller/context/index.js';

// The controller-runtime-shaped builder.
export { InformerHealthError, SyncTimeoutError, controller } from './controller/builder/index.js';
export type {
  Controller, ControllerOptions, InformerHealth, LabelledProblem, UnsyncedInformer, WatchSource, WatchesSpec,
} from './controller/builder/index.js';

// The write path: the typed resource client, mutate, server-side apply, owner references and finalizers.
export {
  AlreadyOwnedError, ClientScopeError, DEFAULT_PAGE_SIZE, DEFAULT_RETRY, FinalizerNameError, OwnerReferenceError, applyConflicts,
  compareResourceVersions, controllerOf, controllerReference, finalizer, isControlledBy, resourceClient,
  setControllerReference,
} from './client/index.js';
export type {
  ApplyConflict, ApplyOptions, CallOptions, ClientListOptions, DeleteCollectionOptions, DeleteOptions, FieldValidation,
  FinalizerHandler, FinalizerHandlers, FinalizerRequest, GetOptions, JsonPatchOperation, MutateOptions, ObjectList, ObjectRef,
  Ownable, Owner, PartialObject, Patch, PropagationPolicy, Recipe, ResourceClient, ResourceClientOptions, RetryPolicy,
  StatusObject, StoreSource, WriteOptions,
} from './client/index.js';

// Status conditions, kept as apimachinery's meta.SetStatusCondition keeps them.
export {
  CONDITION_MESSAGE_LIMIT, conditionTime, findStatusCondition, isStatusConditionFalse, isStatusConditionPresentAndEqual,
  isStatusConditionTrue, removeStatusCondition, setStatusCondition,
} from './client/index.js';
export type { Condition, ConditionHolder, ConditionStatus, ConditionUpdate, SetStatusConditionOptions } from './client/index.js';

// The manager: many controllers, one cache, leader election, probes, metrics, logs, graceful stop.
export {
  DEFAULT_CHECK_TIMEOUT_MS, DEFAULT_HEALTH_PORT, DEFAULT_INFORMER_FAILURE_THRESHOLD_MS, DEFAULT_METRICS_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS, MANAGER_METRIC_NAMES, REDACTED, STOP_SIGNALS, jsonLogger, manager, processSignals, silentLogger,
} from './manager/index.js';
export type {
  HealthCheck, HealthOptions, JsonLoggerOptions, ListenOptions, LogFields, LogLevel,
  ManagerEvent, ManagerEventBase, ManagerLeaderElection, ManagerLogger, ManagerOptions, MetricsOptions, ServerAddress,
  SignalOptions,
} from './manager/index.js';

// Events: the recorder of events.k8s.io/v1 Events.
export { InvalidEventError, NOTE_LIMIT_BYTES, eventRecorder } from './client/index.js';
export type {
  EventCreated, EventDetails, EventDropped, EventFiltered, EventFlushOptions, EventFlushResult, EventObjectLike, EventRecorder,
  EventRecorderCounts, EventRecorderOptions, EventReference, EventRejected, EventReport, EventReportBase, EventRetrying,
  EventSubject, EventType, EventUpdated, EventWriteFailed, RecordedEvent, SpamFilterOptions,
} from './client/index.js';

// ---- Issue 29: derived views over informers, and triggers from outside Kubernetes. (One block, for the merge.)
// Views: projections, filters, joins, owner trees and aggregates, kept incrementally; each is an informer itself.
export {
  aggregateView, diffSnapshots, filterView, joinView, mapView, ownedView, toJoinKeys,
} from './views/index.js';
export type {
  AggregateRow, AggregateViewOptions, JoinKeys, JoinRow, JoinTriggerOperator, JoinViewOptions, MapViewOptions,
  OwnedViewOptions, SnapshotDiff, ToJoinKeysOptions, View, ViewInput, ViewOptions,
} from './views/index.js';
// What changed between two store snapshots (the views read their inputs this way).
export { diffStores } from './store/index.js';
// Triggers from a webhook, a timer, a message queue or another controller's outcomes.
export { toTriggers } from './controller/triggers/index.js';
export type { ToTriggersOptions } from './controller/triggers/index.js';
// ---- End of issue 29's block.
