/**
 * rxkube/extend: what someone extending rxkube needs, and a controller author does not.
 *
 * The layers under the informers (the `Transport` seam and the HTTP transport over client-node's `KubeConfig`, API
 * warnings, JSON decoding, the reflector `listWatch`, the store reducer), the parts for custom informer sources
 * (`informerFromSource`, `coalesceBursts`), the routing of watch health and warnings, discovery, and the plumbing a
 * host of controllers builds on (the monotonic clock, signals, logging and event-recorder shapes, the context's
 * `reconcile`). A controller built with `rxkube` alone never imports from here; its signatures name these types
 * where they take one, and TypeScript finds them here.
 *
 * No name is exported by both `rxkube` and `rxkube/extend`. What this module does not list is internal. Its API
 * report is `api/rxkube-extend.api.md`.
 * @module rxkube/extend
 * @packageDocumentation
 */
import './runtime/node-version.js';

// The network seam: transports, requests, answers.
export { RXKUBE_VERSION, defaultUserAgent, kubeTransport, programName, transportOf } from './transport/index.js';
export type {
  KubeTransportOptions,
  QueryParams,
  RequestMethod,
  RequestOptions,
  Transport,
  TransportRequest,
  TransportResponse,
  WatchRequestOptions,
} from './transport/index.js';

// API warnings: parsing, printing once, deduplicating.
export { API_WARNING_CODE, deduplicateWarnings, parseWarningHeaders, printWarningOnce } from './transport/index.js';
export type { ApiWarning, WarningHandler } from './transport/index.js';

// JSON as Kubernetes writes it (V8's escaped-key bug worked around).
export { expectBackslashKeys, parseJson } from './transport/index.js';

// Discovery: a kind to its URL plural and scope.
export { resolveResource } from './resources/index.js';
export type { ResolveResourceOptions, ResolvedResource } from './resources/index.js';

// Selector checks before anything is sent.
export { checkSelectors } from './selectors/index.js';
export type { SelectorOptions } from './selectors/index.js';

// The reflector, and the routing of its health news.
export { TERMINAL_CODES, WATCH_HEALTH_WARNING, listWatch, printWatchHealth } from './watch/index.js';
export type {
  HealthRoutingConnection,
  ListWatchOptions,
  WatchDelta,
  WatchEvent,
  WatchHealthHandler,
  WatchHealthReport,
  WatchProblem,
  WatchProblemReason,
} from './watch/index.js';
export type { BackoffPolicy } from './backoff/index.js';

// The store reducer.
export { NAMESPACE_INDEX, reduceStore } from './store/index.js';
export type {
  Indexer,
  Indexers,
  ReduceStoreOptions,
  StoreChange,
  StoreOptions,
  StoreProblem,
  StoreUpdate,
} from './store/index.js';

// Informers over custom sources, and hosts that report informer health their own way.
export { claimHealth, coalesceBursts, informerFromSource } from './informer/index.js';
// What changed between two store snapshots (derived views read their inputs this way).
export { diffStores } from './store/index.js';
export type { DeltaSource } from './informer/index.js';

// The reconcile operator's reasons and its metrics hook, and the default error reporting of operators.
export { REQUEUE_REASON, RETRY_REASON } from './controller/index.js';
export type { ReconcileMetrics, ReconcileQueueView } from './controller/index.js';
export type { ReconcileReadiness, StaleObject, StaleRead } from './controller/index.js';

// Read-your-own-writes' rules, for hooks and filters of one's own.
export { cacheShows, echoOf } from './controller/own-writes/index.js';
export { reportError } from './controller/predicates/index.js';

// The monotonic clock every part defaults to (`wallClockNow`, for timestamps, is in `rxkube`).
export { monotonicScheduler } from './clock/index.js';
export type { WallClockScheduler } from './clock/index.js';

// The write path's parts.
export {
  CONDITION_MESSAGE_LIMIT,
  InvalidEventError,
  NOTE_LIMIT_BYTES,
  compareResourceVersions,
} from './client/index.js';
export type {
  EventFlushOptions,
  EventFlushResult,
  EventRecorderCounts,
  EventReference,
  EventReport,
  EventType,
  JsonPatchOperation,
  RecordedEvent,
  SpamFilterOptions,
  ClientWrite,
  ClientWriteOutcome,
  WriteObserver,
  WriteVerb,
} from './client/index.js';

// Lease-fenced sharding, for hosts other than the manager: the range Leases, the per-key gate, the key mapping.
export {
  DEFAULT_SHARD_RANGES,
  KeyRanges,
  RangeGate,
  fairShare,
  rangeSelectedInformer,
  shardLeases,
} from './shards/index.js';
export type { PrimaryCache, ShardEvent, ShardLeasesOptions } from './shards/index.js';

// The manager's parts: signals, redaction, metric names.
export { MANAGER_METRIC_NAMES, REDACTED, STOP_SIGNALS, processSignals } from './manager/index.js';
