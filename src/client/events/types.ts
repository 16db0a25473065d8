/**
 * The public shapes of the event recorder: what `event()` takes, the `events.k8s.io/v1` object it writes, and the
 * reports and counts it gives back.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type { BackoffPolicy } from '../../backoff/index.js';
import type { InvalidEventError } from './build.js';
import type { WarningHandler } from '../../transport/index.js';

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

/** An object as the API serves it: client-node's `KubernetesObject` and every typed model fit. */
export interface EventObjectLike {
  /** The object's apiVersion; required to reference it. */
  readonly apiVersion?: string;
  /** The object's kind; required to reference it. */
  readonly kind?: string;
  /** The object's identity. */
  readonly metadata?: {
    /** The object's name; required to reference it. */
    readonly name?: string;
    /** The object's namespace; omitted for cluster-scoped objects. */
    readonly namespace?: string;
    /** The object's uid. */
    readonly uid?: string;
    /** The object's resourceVersion. */
    readonly resourceVersion?: string;
  };
}

/**
 * What an event is about: the object itself (with `apiVersion`, `kind` and `metadata`), or a reference to it.
 *
 * # Guarantees
 * - An informer's objects (listed or watched: the reflector gives listed ones the `apiVersion` and `kind`
 *   kube-apiserver leaves out of list items) and the objects a write answers with can be passed as they are.
 *
 * # Caveats
 * - An object without `kind` is rejected: the items of a `resourceClient` `list` of a built-in kind (kube-apiserver
 *   leaves them out), the objects of a `metadataOnly` informer (`PartialObjectMetadata`, whose `kind` is not the
 *   resource's), or one a `transform` stripped. Pass a reference `{ apiVersion, kind, namespace, name, uid }` for
 *   those.
 */
export type EventSubject = EventObjectLike | EventReference;

/** What happened, for {@link EventRecorder.event}. */
export interface EventDetails {
  /** `Normal`, or `Warning` for what a user should look into. */
  readonly type: EventType;
  /** Why the action was taken, UpperCamelCase by convention (`FailedScheduling`). Required, at most 128 characters. */
  readonly reason: string;
  /** What was done, or failed to be done, UpperCamelCase by convention (`Binding`). Required, at most 128 characters. */
  readonly action: string;
  /** Human-readable detail; cut at the API's limit of 1024 bytes (UTF-8) rather than rejected. */
  readonly note?: string;
  /** A second object the event involves, e.g. the Node a Pod was bound to. */
  readonly related?: EventSubject;
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
  /** What was done, or failed to be done (see {@link EventDetails.action}). */
  readonly action: string;
  /** Why (see {@link EventDetails.reason}). */
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

/** Options of {@link eventRecorder}. */
export interface EventRecorderOptions {
  /**
   * Who reports: a qualified name such as `example.com/node-labeler` (validated as the API server does). Required.
   */
  readonly reportingController: string;
  /** Which instance reports, at most 128 characters. Default `<reportingController>-<hostname>`, as client-go. */
  readonly reportingInstance?: string;
  /**
   * The field manager of the recorder's writes (creations and series updates), as `managedFields` and audit logs
   * show it: at most 128 bytes of printable characters. Default: `reportingController`.
   */
  readonly fieldManager?: string;
  /**
   * Every timer and every time reading goes through it: durations (series window and refresh, spam filter, retries,
   * timeouts) from its `now()`, and the Event's `eventTime`, `series.lastObservedTime` and name from its wall clock
   * (`wallClockNow(scheduler)`). Default {@link monotonicScheduler}: a clock step moves no duration and every stamp
   * is `Date.now()`; virtual inside `TestScheduler.run()`.
   */
  readonly scheduler?: SchedulerLike;
  /** Uniform samples in [0, 1): retry jitter and the random part of Event names. Default `Math.random`. */
  readonly random?: () => number;
  /** A repeat less than this long after the previous occurrence joins its series, ms. Default 360 000 (6 min). */
  readonly seriesWindowMs?: number;
  /** A live series whose count moved is written at least this often, ms. Default 1 800 000 (30 min). */
  readonly seriesRefreshMs?: number;
  /** The per-object spam filter; `false` turns it off. Default burst 25, 1/300 qps (one per 5 min), 4096 objects. */
  readonly spamFilter?: SpamFilterOptions | false;
  /** Writes outstanding at once (queued, in flight or waiting to retry); beyond it new writes are dropped. Default 1000. */
  readonly maxPending?: number;
  /** Requests in flight at once. Default 4. */
  readonly concurrency?: number;
  /** Tries per write before it is given up (`failed`). Default 12, as client-go. */
  readonly maxAttempts?: number;
  /** Delay before the n-th retry: `base · factor^(n-1)`, capped, plus up to 25 % jitter. Default 1 s × 2, cap 30 s. */
  readonly retryBackoff?: BackoffPolicy;
  /** A request that has not answered by then is abandoned (and retried), ms. Default 10 000. */
  readonly requestTimeoutMs?: number;
  /** Series remembered at once; beyond it the least recently seen one ends early. Default 4096. */
  readonly maxSeries?: number;
  /** Default time limit of {@link EventRecorder.flush} and {@link EventRecorder.close}, ms. Default 10 000. */
  readonly drainTimeoutMs?: number;
  /**
   * Receives every warning the API server attaches to the recorder's writes (`Warning: 299`), refused ones
   * included; a handler that throws is reported as a process warning. Default: `printWarningOnce`, as the
   * resource client's `onWarning`.
   */
  readonly onWarning?: WarningHandler;
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

/** Common fields of every {@link EventReport}. */
export interface EventReportBase {
  /** Scheduler time of the report, ms. */
  readonly time: number;
  /** The Event as the recorder holds it (with `series` when it has one). */
  readonly event: RecordedEvent;
}

/** The Event was created on the server. */
export interface EventCreated extends EventReportBase {
  /** Discriminates the report. */
  readonly type: 'created';
  /** The server's object (its `metadata.resourceVersion` included). */
  readonly object: RecordedEvent;
}

/** The Event's `series` (count and last observation) was written. */
export interface EventUpdated extends EventReportBase {
  /** Discriminates the report. */
  readonly type: 'updated';
  /** The series count now on the server. */
  readonly count: number;
  /** The server's object. */
  readonly object: RecordedEvent;
}

/** A write failed and will be tried again after `delayMs`. */
export interface EventRetrying extends EventReportBase {
  /** Discriminates the report. */
  readonly type: 'retrying';
  /** The failure: an `ApiError`, a `TransportError` or rxjs's `TimeoutError`. */
  readonly error: unknown;
  /** Tries so far, counting the one that failed. */
  readonly attempt: number;
  /** How long until the next try, ms. */
  readonly delayMs: number;
}

/** A write failed for good: the server refused it, or it ran out of tries. */
export interface EventWriteFailed extends EventReportBase {
  /** Discriminates the report. */
  readonly type: 'failed';
  /** The last failure: an `ApiError`, a `TransportError` or rxjs's `TimeoutError`. */
  readonly error: unknown;
  /** Tries made in all. */
  readonly attempts: number;
}

/**
 * A write was never sent: the queue was full (`QueueFull`) or the recorder closed (`Closed`). A dropped creation
 * loses the Event; a dropped series update leaves the count on the server behind until the series' next write.
 */
export interface EventDropped extends EventReportBase {
  /** Discriminates the report. */
  readonly type: 'dropped';
  /** `QueueFull`: `maxPending` writes were outstanding. `Closed`: the recorder was closing or closed. */
  readonly reason: 'QueueFull' | 'Closed';
}

/** The spam filter turned an occurrence away: its object has had too many events lately. */
export interface EventFiltered extends EventReportBase {
  /** Discriminates the report. */
  readonly type: 'filtered';
}

/** `event()` was called with something the API would refuse; nothing was recorded. */
export interface EventRejected {
  /** Discriminates the report. */
  readonly type: 'rejected';
  /** Scheduler time of the call, ms. */
  readonly time: number;
  /** Why: an {@link InvalidEventError} naming the field. */
  readonly error: unknown;
}

/** What the recorder did, one report per outcome. */
export type EventReport =
  | EventCreated | EventUpdated | EventRetrying | EventWriteFailed | EventDropped | EventFiltered | EventRejected;

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

/** The outcome of {@link EventRecorder.flush} or {@link EventRecorder.close}. */
export interface EventFlushResult {
  /** Everything that was pending has been written or given up. */
  readonly complete: boolean;
  /** Writes still outstanding when the time limit ended the wait (0 when complete). */
  readonly pending: number;
}

/** Options of {@link EventRecorder.flush} and {@link EventRecorder.close}. */
export interface EventFlushOptions {
  /** Time limit, ms. Default: the recorder's `drainTimeoutMs`. */
  readonly timeoutMs?: number;
}

/**
 * Records `events.k8s.io/v1` Events without ever blocking or failing its caller. Made by {@link eventRecorder}.
 *
 * # Guarantees
 * - `event()` returns at once and never throws. Nothing is sent from inside it: writes start on the scheduler.
 * - Every call is accounted for on `reports$` and in `counts()`: `rejected` (invalid), `filtered` (spam), `dropped`
 *   (closed), or recorded, as a new Event or folded into a series. Every write ends as `created`/`updated`, `failed`
 *   or `dropped`; `retrying` reports each retry on the way.
 */
export interface EventRecorder {
  /** The `reportingController` of every Event it writes. */
  readonly reportingController: string;
  /** The `reportingInstance` of every Event it writes. */
  readonly reportingInstance: string;
  /** Records one occurrence of an event about `regarding`. */
  event(regarding: EventSubject, details: EventDetails): void;
  /** Reports of what happened, from subscription on (hot). Completes when `close()` has finished. */
  readonly reports$: Observable<EventReport>;
  /** A snapshot of the running totals. */
  counts(): EventRecorderCounts;
  /**
   * On subscription, queues every series whose count the server does not have yet, then emits once and completes
   * when every write outstanding at that moment has been written or given up, or when the time limit passes.
   * The recorder keeps running.
   */
  flush(options?: EventFlushOptions): Observable<EventFlushResult>;
  /**
   * On subscription, stops intake (later occurrences are `dropped` as `Closed`), flushes within the time limit,
   * then abandons what is left (reported `dropped`), cancels every timer, completes `reports$`, emits once and
   * completes. Closing twice is harmless.
   */
  close(options?: EventFlushOptions): Observable<EventFlushResult>;
}
