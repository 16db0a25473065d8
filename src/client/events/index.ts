/**
 * Events: `events.k8s.io/v1` Events recorded as client-go's `tools/events` does (series folding, a per-object spam
 * filter), through a bounded, retrying queue that never blocks or fails the caller.
 * @packageDocumentation
 */
export { eventRecorder } from './recorder.js';
export { InvalidEventError, NOTE_LIMIT_BYTES, qualifiedNameProblem } from './build.js';
export { DEFAULT_SPAM_BURST, DEFAULT_SPAM_OBJECTS, DEFAULT_SPAM_QPS } from './spam-filter.js';
export type { EventDetails, EventRecorder, EventRecorderOptions, EventSubject } from './recording.js';
export type {
  EventCreated,
  EventDropped,
  EventFiltered,
  EventFlushOptions,
  EventFlushResult,
  EventRecorderCounts,
  EventReference,
  EventRejected,
  EventReport,
  EventReportBase,
  EventRetrying,
  EventType,
  EventUpdated,
  EventWriteFailed,
  RecordedEvent,
  SpamFilterOptions,
} from './types.js';
