/**
 * Events: `events.k8s.io/v1` Events recorded as client-go's `tools/events` does (series folding, a per-object spam
 * filter), through a bounded, retrying queue that never blocks or fails the caller.
 * @packageDocumentation
 */
export { eventRecorder } from './recorder.js';
export { InvalidEventError, NOTE_LIMIT_BYTES, qualifiedNameProblem } from './build.js';
export type {
  EventCreated, EventDetails, EventDropped, EventFiltered, EventFlushOptions, EventFlushResult, EventObjectLike, EventRecorder,
  EventRecorderCounts, EventRecorderOptions, EventReference, EventRejected, EventReport, EventReportBase, EventRetrying,
  EventSubject, EventType, EventUpdated, EventWriteFailed, RecordedEvent, SpamFilterOptions,
} from './types.js';
