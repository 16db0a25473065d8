/**
 * What a controller records with, and names (exported from `rxkube`): the recorder, its options, what one event
 * says, and about what. The shapes of what the recorder writes and reports are in `./types.ts`.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type {
  BackoffPolicy,
  EventFlushOptions,
  EventFlushResult,
  EventRecorderCounts,
  EventReference,
  EventReport,
  EventType,
  SpamFilterOptions,
  WarningHandler,
} from 'rxkube/extend';
import type { ObjectLike } from '../../objects/index.js';

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
export type EventSubject = ObjectLike | EventReference;

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
   * (`wallClockNow(scheduler)`). Default `monotonicScheduler`: a clock step moves no duration and every stamp is
   * `Date.now()`; virtual inside `TestScheduler.run()`.
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
