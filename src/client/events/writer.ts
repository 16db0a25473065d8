/**
 * The recorder's write queue: at most one write per series at a time, a bounded number outstanding, bounded
 * concurrency, retries with backoff, all on the scheduler. Internal to the event recorder.
 */
import { catchError, defer, map, of, switchMap, throwError, timeout, TimeoutError } from 'rxjs';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { backoffCeiling, proportionalJitter } from '../../backoff/index.js';
import type { BackoffPolicy } from '../../backoff/index.js';
import { builtinResource, collectionPath } from '../../resources/index.js';
import {
  ApiError,
  TransportError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isServerError,
  isTooManyRequests,
} from '../../transport/index.js';
import type { QueryParams, Transport, TransportRequest } from '../../transport/index.js';
import { requestWithWarnings, type WarningHandler } from '../../transport/index.js';
import { microTime } from './build.js';
import type { EventNamer } from './build.js';
import type { EventReport, RecordedEvent } from './types.js';

/** How much longer than the backoff a retry may wait: client-go's `wait.Jitter(d, 0.25)`. */
const RETRY_JITTER = 0.25;

const EVENTS = builtinResource('events.k8s.io/v1', 'Event')!;
const MERGE_PATCH = 'application/merge-patch+json';

/** One Event object and its occurrences: the unit of folding and of writing. */
export interface Series {
  readonly key: string;
  /** The Event as first recorded (without `series`); its name changes only when it was taken by someone else. */
  body: RecordedEvent;
  count: number;
  /** When the last occurrence was seen, on the scheduler's `now()`: the series window is measured from it. */
  lastObservedMs: number;
  /** The wall-clock time of the last occurrence (`wallClockNow`): what `series.lastObservedTime` says. */
  lastObservedStamp: number;
  /** What the server holds as far as we know: `undefined` until created. */
  written: { count: number } | undefined;
  /** When a write of this series was last asked for (for the periodic refresh). */
  lastWriteRequestMs: number;
  /** The series' expiry/refresh timer. */
  timer: Subscription | undefined;
  state: 'idle' | 'queued' | 'inFlight' | 'backingOff';
  /** A write was asked for while one was in flight: write again after it. */
  again: boolean;
  /** Failed tries of the current write. */
  attempts: number;
  /** The request in flight or the retry timer. */
  work: Subscription | undefined;
}

/** The Event as it stands: with `series` from the second occurrence on. */
export function eventOf(series: Series): RecordedEvent {
  if (series.count < 2) return series.body;
  return { ...series.body, series: { count: series.count, lastObservedTime: microTime(series.lastObservedStamp) } };
}

/** True when the server lacks something the recorder knows. */
export function isDirty(series: Series): boolean {
  return series.written === undefined || series.written.count < series.count;
}

/** Settings of the writer, validated by the recorder. */
export interface WriterSettings {
  readonly transport: Transport;
  /** The `fieldManager` of every write. */
  readonly fieldManager: string;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly maxPending: number;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly retryBackoff: BackoffPolicy;
  readonly requestTimeoutMs: number;
  readonly nameFor: EventNamer;
  readonly onWarning: WarningHandler;
}

/** What the writer tells the recorder. */
export interface WriterHooks {
  report(report: EventReport): void;
  /** Counts a write outcome. */
  count(what: 'created' | 'updated' | 'retried' | 'failed' | 'dropped'): void;
  /** The creation of `series` failed for good: it must not take repeats any more. */
  abandon(series: Series): void;
  /** A write settled (written, failed or dropped): flushes re-check. */
  settled(): void;
}

/** One successful write. */
interface Written {
  readonly object: RecordedEvent;
  readonly kind: 'created' | 'updated';
  /** The series count the server now holds. */
  readonly count: number;
  /** The count the request carried. */
  readonly requested: number;
}

/**
 * Writes series to the API server.
 *
 * # Guarantees
 * - A series is never written by two requests at once; asking while it is queued or waiting to retry changes
 *   nothing (the write sends the latest state), asking while it is in flight writes once more afterwards.
 * - At most `maxPending` series are outstanding; asking beyond that drops the new write (client-go's
 *   `DropIfChannelFull`) and reports it.
 * - A new series is created (POST); a created one gets a merge patch of `series`; a 404 there recreates it under
 *   the same name with its series; a 409 AlreadyExists on creation adopts the object if it is ours (same reporter,
 *   eventTime, reason and action), else renames the Event once.
 * - Network errors, timeouts, 429, 5xx and 409 Conflict are retried up to `maxAttempts` tries, after
 *   `base · factor^(n-1)` plus up to 25 % jitter, and never sooner than a `Retry-After`. Anything else fails at once.
 */
export class EventWriter {
  private readonly queue = new Set<Series>();
  /** Series whose write is in flight or waiting to retry. */
  private readonly inFlightOrWaiting = new Set<Series>();
  private inFlight = 0;
  private waiting = 0;
  private pump: Subscription | undefined;

  constructor(
    private readonly settings: WriterSettings,
    private readonly hooks: WriterHooks,
  ) {}

  /** Writes outstanding: queued, in flight or waiting to retry. */
  get pending(): number {
    return this.queue.size + this.inFlight + this.waiting;
  }

  /** Asks for `series` to be written; `false` when it was dropped because the queue is full (already reported). */
  request(series: Series): boolean {
    series.lastWriteRequestMs = this.settings.scheduler.now();
    if (series.state === 'inFlight') series.again = true;
    if (series.state !== 'idle') return true;
    if (this.pending >= this.settings.maxPending) {
      this.drop(series, 'QueueFull');
      return false;
    }
    this.enqueue(series);
    return true;
  }

  /** Drops every outstanding write (reported `dropped` as `Closed`), aborting requests and retry timers. */
  abandonAll(): void {
    this.pump?.unsubscribe();
    const outstanding = new Set<Series>(this.queue);
    for (const series of outstanding) this.queue.delete(series);
    for (const series of this.inFlightOrWaiting) outstanding.add(series);
    for (const series of outstanding) {
      series.work?.unsubscribe();
      if (series.state === 'inFlight') this.inFlight--;
      if (series.state === 'backingOff') this.waiting--;
      series.state = 'idle';
      this.drop(series, 'Closed');
    }
  }

  /** Every series with a write outstanding. */
  outstanding(): Series[] {
    return [...this.queue, ...this.inFlightOrWaiting];
  }

  /** True while `series` has a write outstanding. */
  isOutstanding(series: Series): boolean {
    return series.state !== 'idle';
  }

  private drop(series: Series, reason: 'QueueFull' | 'Closed'): void {
    this.hooks.count('dropped');
    this.hooks.report({ type: 'dropped', time: this.settings.scheduler.now(), event: eventOf(series), reason });
    if (series.written === undefined) this.hooks.abandon(series);
    this.hooks.settled();
  }

  private enqueue(series: Series): void {
    series.state = 'queued';
    this.queue.add(series);
    this.schedulePump();
  }

  /**
   * Writes never start inside a caller's stack (nor inside the previous write's callback, which a synchronous
   * transport would turn into unbounded recursion): the pump runs as its own scheduler action.
   */
  private schedulePump(): void {
    if (this.queue.size === 0) return;
    this.pump ??= this.settings.scheduler.schedule(() => {
      this.pump = undefined;
      this.startReady();
    });
  }

  private startReady(): void {
    while (this.inFlight < this.settings.concurrency && this.queue.size > 0) {
      const series = this.queue.values().next().value!;
      this.queue.delete(series);
      this.start(series);
    }
  }

  private start(series: Series): void {
    series.state = 'inFlight';
    series.again = false;
    this.inFlight++;
    this.inFlightOrWaiting.add(series);
    const write$ = this.write(series).pipe(
      timeout({ first: this.settings.requestTimeoutMs, scheduler: this.settings.scheduler }),
    );
    let done = false;
    const subscription = write$.subscribe({
      next: (written) => {
        done = true;
        this.finish(series);
        this.succeeded(series, written);
      },
      error: (error: unknown) => {
        done = true;
        this.finish(series);
        this.failed(series, error);
      },
    });
    if (!done) series.work = subscription;
  }

  private finish(series: Series): void {
    series.work = undefined;
    series.state = 'idle';
    this.inFlight--;
    this.inFlightOrWaiting.delete(series);
  }

  private succeeded(series: Series, written: Written): void {
    series.attempts = 0;
    series.written = { count: written.count };
    // An adopted object can hold less than the request carried: write the rest.
    if (written.count < written.requested) series.again = true;
    const time = this.settings.scheduler.now();
    this.hooks.count(written.kind);
    this.hooks.report(
      written.kind === 'created'
        ? { type: 'created', time, event: eventOf(series), object: written.object }
        : { type: 'updated', time, event: eventOf(series), object: written.object, count: written.count },
    );
    if (series.again && isDirty(series)) this.enqueue(series);
    this.schedulePump();
    this.hooks.settled();
  }

  private failed(series: Series, error: unknown): void {
    series.attempts++;
    const time = this.settings.scheduler.now();
    if (!isRetryable(error) || series.attempts >= this.settings.maxAttempts) {
      const attempts = series.attempts;
      series.attempts = 0;
      this.hooks.count('failed');
      this.hooks.report({ type: 'failed', time, event: eventOf(series), error, attempts });
      if (series.written === undefined) this.hooks.abandon(series);
      else if (series.again && isDirty(series)) this.enqueue(series);
      this.schedulePump();
      this.hooks.settled();
      return;
    }
    const delayMs = this.retryDelay(series.attempts, error);
    this.hooks.count('retried');
    this.hooks.report({ type: 'retrying', time, event: eventOf(series), error, attempt: series.attempts, delayMs });
    series.state = 'backingOff';
    this.waiting++;
    this.inFlightOrWaiting.add(series);
    series.work = this.settings.scheduler.schedule(() => {
      series.work = undefined;
      this.waiting--;
      this.inFlightOrWaiting.delete(series);
      this.enqueue(series);
    }, delayMs);
    this.schedulePump();
  }

  private retryDelay(attempt: number, error: unknown): number {
    const backoff = proportionalJitter(
      backoffCeiling(attempt - 1, this.settings.retryBackoff),
      RETRY_JITTER,
      this.settings.random(),
    );
    const retryAfter =
      error instanceof ApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
    return Math.ceil(Math.max(backoff, retryAfter));
  }

  /** The request for the series' current state: create it, or patch its series (recreating it on 404). */
  private write(series: Series): Observable<Written> {
    if (series.written === undefined) return this.create(series, false);
    const event = eventOf(series);
    const count = event.series?.count ?? 1;
    return this.send({
      method: 'PATCH',
      path: this.itemPath(series),
      query: this.writeQuery(),
      body: { series: event.series },
      contentType: MERGE_PATCH,
    }).pipe(
      map((object): Written => ({ object, kind: 'updated', count, requested: count })),
      catchError((error: unknown) => {
        if (!isNotFound(error)) return throwError(() => error);
        // Gone (its TTL ran out, or it was deleted): recreate it as client-go does, same name, with the series.
        series.written = undefined;
        return this.create(series, false);
      }),
    );
  }

  /** POSTs the series' current state; `renamed` once the name has been found taken by someone else. */
  private create(series: Series, renamed: boolean): Observable<Written> {
    return defer(() => {
      const event = eventOf(series);
      const count = event.series?.count ?? 1;
      return this.send({
        method: 'POST',
        path: collectionPath(EVENTS, event.metadata.namespace),
        query: this.writeQuery(),
        body: event,
      }).pipe(
        map((object): Written => ({ object, kind: 'created', count, requested: count })),
        catchError((error: unknown) =>
          isAlreadyExists(error) && !renamed ? this.adopt(series, count) : throwError(() => error),
        ),
      );
    });
  }

  /**
   * The name is taken. If the object there is ours (an earlier try landed although its answer was lost), it is
   * the creation we wanted; otherwise the name collided with someone else's Event: take a fresh name, once.
   */
  private adopt(series: Series, requested: number): Observable<Written> {
    return this.send({ method: 'GET', path: this.itemPath(series) }).pipe(
      catchError((error: unknown) => (isNotFound(error) ? of(undefined) : throwError(() => error))),
      switchMap((object) => {
        if (object !== undefined && isSameEvent(object, series.body)) {
          return of<Written>({ object, kind: 'created', count: object.series?.count ?? 1, requested });
        }
        if (object !== undefined) {
          const name = this.settings.nameFor(series.body.regarding.name!);
          series.body = { ...series.body, metadata: { ...series.body.metadata, name } };
        }
        return this.create(series, true);
      }),
    );
  }

  private itemPath(series: Series): string {
    return `${collectionPath(EVENTS, series.body.metadata.namespace)}/${encodeURIComponent(series.body.metadata.name)}`;
  }

  /** Every write names its field manager, so managedFields and audit logs show who wrote the Event. */
  private writeQuery(): QueryParams {
    return { fieldManager: this.settings.fieldManager };
  }

  private send(request: TransportRequest): Observable<RecordedEvent> {
    return requestWithWarnings(this.settings.transport, request, this.settings.onWarning).pipe(
      map((response) => response.body as RecordedEvent),
    );
  }
}

/** Same reporter, same first occurrence, same reason and action: the object is the Event we tried to create. */
function isSameEvent(object: RecordedEvent, body: RecordedEvent): boolean {
  return (
    object.reportingController === body.reportingController &&
    object.reportingInstance === body.reportingInstance &&
    object.eventTime === body.eventTime &&
    object.reason === body.reason &&
    object.action === body.action
  );
}

/**
 * Worth another try: the network or a timeout, throttling, a server error, or a 409 Conflict (a concurrent write).
 * Everything else (400, 403, 404 on creation, 422, ...) would fail the same way again.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  if (error instanceof TransportError) return error.reason !== 'NoCluster';
  return isTooManyRequests(error) || isServerError(error) || isConflict(error);
}
