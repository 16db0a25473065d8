/**
 * The shapes of what the event recorder writes and reports (exported from `rxkube/extend`): the `events.k8s.io/v1`
 * object, references, the reports, counts and flush results, the spam filter's options. What a controller records
 * with and names is in `./recording.ts` (exported from `rxkube`).
 */

/** The two event types the API accepts. */
export type EventType = 'Normal' | 'Warning';

/**
 * A reference to an object, as in `regarding` and `related` (`v1.ObjectReference`). client-node's
 * `V1ObjectReference` fits.
 */
export interface EventReference {
  /** The object's apiVersion, e.g. `apps/v1`. */
  readonly apiVersion?: string;
  /** The object's kind, e.g. `Deployment`. */
  readonly kind?: string;
  /** The object's namespace; omitted for cluster-scoped objects. */
  readonly namespace?: string;
  /** The object's name. */
  readonly name?: string;
  /** The object's uid. */
  readonly uid?: string;
  /** The object's resourceVersion when the event was recorded. */
  readonly resourceVersion?: string;
  /** A part of the object, e.g. `spec.containers{web}`. */
  readonly fieldPath?: string;
}

/** An `events.k8s.io/v1` Event in its JSON form (times are RFC 3339 strings with microseconds). */
export interface RecordedEvent {
  /** Always `events.k8s.io/v1`. */
  readonly apiVersion: 'events.k8s.io/v1';
  /** Always `Event`. */
  readonly kind: 'Event';
  /** The Event's own identity. */
  readonly metadata: {
    /** The subject's name with a unique suffix, as client-go names events. */
    readonly name: string;
    /** The subject's namespace (`default` for cluster-scoped subjects). */
    readonly namespace: string;
    /** Set by the server. */
    readonly uid?: string;
    /** Set by the server. */
    readonly resourceVersion?: string;
    /** Set by the server. */
    readonly creationTimestamp?: string;
  };
  /** When the first occurrence was observed: MicroTime, e.g. `2026-01-01T00:00:00.000000Z`. */
  readonly eventTime: string;
  /** Present from the second occurrence on. */
  readonly series?: {
    /** How many times it occurred, the first included. */
    readonly count: number;
    /** When the last occurrence was observed: MicroTime. */
    readonly lastObservedTime: string;
  };
  /** The recorder's `reportingController`. */
  readonly reportingController: string;
  /** The recorder's `reportingInstance`. */
  readonly reportingInstance: string;
  /** What was done, or failed to be done (see `EventDetails.action`). */
  readonly action: string;
  /** Why (see `EventDetails.reason`). */
  readonly reason: string;
  /** `Normal` or `Warning`. */
  readonly type: EventType;
  /** Human-readable detail, at most 1024 bytes. */
  readonly note?: string;
  /** The object the event is about. */
  readonly regarding: EventReference;
  /** A second object the event involves. */
  readonly related?: EventReference;
}

/** Options of the per-object spam filter (client-go's `EventSourceObjectSpamFilter`). */
export interface SpamFilterOptions {
  /** Events an object may get at once after a quiet period. Default 25. */
  readonly burst?: number;
  /** Tokens added per second. Default 1/300 (one per 5 min). */
  readonly qps?: number;
  /** Objects remembered; the least recently used one is forgotten beyond it. Default 4096. */
  readonly maxObjects?: number;
}

/**
 * What the recorder did, one report per outcome; narrow on `type`:
 *
 * - `created`: The Event was created on the server.
 * - `updated`: The Event's `series` (count and last observation) was written.
 * - `retrying`: A write failed and will be tried again after `delayMs`.
 * - `failed`: A write failed for good: the server refused it, or it ran out of tries.
 * - `dropped`: A write was never sent: the queue was full (`QueueFull`) or the recorder closed (`Closed`). A dropped
 *   creation loses the Event; a dropped series update leaves the count on the server behind until the series' next
 *   write.
 * - `filtered`: The spam filter turned an occurrence away: its object has had too many events lately.
 * - `rejected`: `event()` was called with something the API would refuse; nothing was recorded.
 *
 * Every report but `rejected` carries `time` and the `event` as the recorder holds it.
 */
export type EventReport =
  | {
      /** Discriminates the report. */
      readonly type: 'created';
      /** The server's object (its `metadata.resourceVersion` included). */
      readonly object: RecordedEvent;
      /** Scheduler time of the report, ms. */
      readonly time: number;
      /** The Event as the recorder holds it (with `series` when it has one). */
      readonly event: RecordedEvent;
    }
  | {
      /** Discriminates the report. */
      readonly type: 'updated';
      /** The series count now on the server. */
      readonly count: number;
      /** The server's object. */
      readonly object: RecordedEvent;
      /** Scheduler time of the report, ms. */
      readonly time: number;
      /** The Event as the recorder holds it (with `series` when it has one). */
      readonly event: RecordedEvent;
    }
  | {
      /** Discriminates the report. */
      readonly type: 'retrying';
      /** The failure: an `ApiError`, a `TransportError` or rxjs's `TimeoutError`. */
      readonly error: unknown;
      /** Tries so far, counting the one that failed. */
      readonly attempt: number;
      /** How long until the next try, ms. */
      readonly delayMs: number;
      /** Scheduler time of the report, ms. */
      readonly time: number;
      /** The Event as the recorder holds it (with `series` when it has one). */
      readonly event: RecordedEvent;
    }
  | {
      /** Discriminates the report. */
      readonly type: 'failed';
      /** The last failure: an `ApiError`, a `TransportError` or rxjs's `TimeoutError`. */
      readonly error: unknown;
      /** Tries made in all. */
      readonly attempts: number;
      /** Scheduler time of the report, ms. */
      readonly time: number;
      /** The Event as the recorder holds it (with `series` when it has one). */
      readonly event: RecordedEvent;
    }
  | {
      /** Discriminates the report. */
      readonly type: 'dropped';
      /** `QueueFull`: `maxPending` writes were outstanding. `Closed`: the recorder was closing or closed. */
      readonly reason: 'QueueFull' | 'Closed';
      /** Scheduler time of the report, ms. */
      readonly time: number;
      /** The Event as the recorder holds it (with `series` when it has one). */
      readonly event: RecordedEvent;
    }
  | {
      /** Discriminates the report. */
      readonly type: 'filtered';
      /** Scheduler time of the report, ms. */
      readonly time: number;
      /** The Event as the recorder holds it (with `series` when it has one). */
      readonly event: RecordedEvent;
    }
  | {
      /** Discriminates the report. */
      readonly type: 'rejected';
      /** Scheduler time of the call, ms. */
      readonly time: number;
      /** Why: an `InvalidEventError` naming the field. */
      readonly error: unknown;
    };

/** The fields every {@link EventReport} but `rejected` carries. */
export type EventReportBase = Pick<Exclude<EventReport, { readonly type: 'rejected' }>, 'time' | 'event'>;
/** The `created` {@link EventReport}. */
export type EventCreated = Extract<EventReport, { readonly type: 'created' }>;
/** The `updated` {@link EventReport}. */
export type EventUpdated = Extract<EventReport, { readonly type: 'updated' }>;
/** The `retrying` {@link EventReport}. */
export type EventRetrying = Extract<EventReport, { readonly type: 'retrying' }>;
/** The `failed` {@link EventReport}. */
export type EventWriteFailed = Extract<EventReport, { readonly type: 'failed' }>;
/** The `dropped` {@link EventReport}. */
export type EventDropped = Extract<EventReport, { readonly type: 'dropped' }>;
/** The `filtered` {@link EventReport}. */
export type EventFiltered = Extract<EventReport, { readonly type: 'filtered' }>;
/** The `rejected` {@link EventReport}. */
export type EventRejected = Extract<EventReport, { readonly type: 'rejected' }>;

/** Running totals since the recorder was made. */
export interface EventRecorderCounts {
  /** Occurrences accepted by `event()` (neither rejected nor filtered). */
  readonly recorded: number;
  /** Occurrences folded into an existing series. */
  readonly folded: number;
  /** Occurrences turned away by the spam filter. */
  readonly filtered: number;
  /** `event()` calls with invalid input. */
  readonly rejected: number;
  /** Notes cut to 1024 bytes. */
  readonly truncated: number;
  /** Events created. */
  readonly created: number;
  /** Series updates written. */
  readonly updated: number;
  /** Retries scheduled. */
  readonly retried: number;
  /** Writes given up. */
  readonly failed: number;
  /** Writes never sent (queue full, closed). */
  readonly dropped: number;
  /** Writes outstanding now: queued, in flight or waiting to retry. */
  readonly pending: number;
}

/** The outcome of `EventRecorder.flush` or `EventRecorder.close`. */
export interface EventFlushResult {
  /** Everything that was pending has been written or given up. */
  readonly complete: boolean;
  /** Writes still outstanding when the time limit ended the wait (0 when complete). */
  readonly pending: number;
}

/** Options of `EventRecorder.flush` and `EventRecorder.close`. */
export interface EventFlushOptions {
  /** Time limit, ms. Default: the recorder's `drainTimeoutMs`. */
  readonly timeoutMs?: number;
}
