/**
 * The reflector: `listWatch` (list, watch, resume, relist, backoff) and the WatchEvent types.
 * @packageDocumentation
 */
export type {
  ListedPages,
  ReflectorDelta,
  ResourceRef,
  WatchDelta,
  WatchEvent,
  WatchFailure,
  WatchProblem,
  WatchProblemReason,
  WatchStatus,
} from './types.js';
export { expandListedPages, listWatch, listWatchBatches } from './list-watch.js';
export { ListWatchError, FAIL_FAST_CODES, TERMINAL_CODES } from './errors.js';
export {
  HealthReporter,
  WATCH_HEALTH_WARNING,
  checkHealthHandler,
  defaultHealthHandler,
  deliverHealth,
  describeFailure,
  describeWatch,
  printWatchHealth,
  watchFailureKey,
} from './health.js';
export type { HealthRoutingConnection, WatchHealthHandler, WatchHealthReport, WatchScope } from './health.js';
export { BACKOFF_RESET_MS, DEFAULT_WATCH_BACKOFF, exponentialBackoff } from './backoff.js';
export {
  DEFAULT_LIST_TIMEOUT_MS,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  DEFAULT_WATCH_IDLE_TIMEOUT_MS,
  METADATA_LIST_ACCEPT,
  METADATA_WATCH_ACCEPT,
  checkWatchOptions,
  stripManagedFields,
} from './options.js';
export type { ListWatchOptions } from './options.js';
export { INITIAL_EVENTS_END, decodeWatchLine } from './decode.js';
export type { DecodedLine } from './decode.js';
