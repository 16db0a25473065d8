/**
 * `eventRecorder`: `events.k8s.io/v1` Events with client-go's series folding, a per-object spam filter and a
 * bounded, retrying write queue that never blocks or fails its caller.
 */
import { hostname } from 'node:os';
import { defer, filter, map, of, startWith, Subject, take, timeout } from 'rxjs';
import type { Observable } from 'rxjs';
import { wallClockNow } from '../../clock/index.js';
import { transportOf } from '../../transport/index.js';
import type { Connection } from '../../transport/index.js';
import { buildEvent, eventNamer } from './build.js';
import { SpamFilter } from './spam-filter.js';
import type { EventDetails, EventRecorder, EventRecorderOptions, EventSubject } from './recording.js';
import type { EventFlushOptions, EventFlushResult, EventRecorderCounts, EventReport } from './types.js';
import { EventWriter, isDirty } from './writer.js';
import type { Series } from './writer.js';
import { resolveRecorderOptions } from './options.js';

type Counter = Exclude<keyof EventRecorderCounts, 'pending'>;

/**
 * Makes a recorder of `events.k8s.io/v1` Events reported by `reportingController` (and `reportingInstance`),
 * written through `connection` (a KubeConfig or any Transport).
 *
 * # Guarantees
 * - **Never blocks, never fails the caller.** `event()` validates, filters and folds synchronously, then returns;
 *   writes start on the scheduler. Invalid input is `rejected` (an `InvalidEventError` from `rxkube/extend` on `reports$`), never
 *   thrown.
 * - **Series** (client-go `tools/events`). Occurrences with the same type, action, reason, reporter, regarding and
 *   related references (the note is not compared, and the references carry resourceVersion, as client-go's
 *   `getKey`) are isomorphic. A repeat less than `seriesWindowMs` (6 min) after the previous occurrence folds into
 *   the existing Event: the second occurrence writes `series: { count: 2, lastObservedTime }` at once; later counts
 *   are written when the series ends (6 min without a repeat), at least every `seriesRefreshMs` (30 min) while it
 *   goes on, and on `flush()`/`close()`. A repeat after the window starts a new Event.
 * - **Spam filter** (client-go `EventSourceObjectSpamFilter`). Per regarding object and event type, a token bucket
 *   of burst 25 refilled at one per 5 minutes; every occurrence, folded or not, takes a token, and one without a
 *   token is `filtered`.
 * - **Bounded queue.** At most `maxPending` (1000) writes outstanding; a write beyond that is dropped and reported
 *   (the newest, as client-go's broadcaster drops what does not fit). Each series has at most one write in flight.
 * - **Retries.** Network errors, timeouts, 429, 5xx and 409 Conflict are retried after `1 s · 2^(n-1)` (cap 30 s,
 *   up to 25 % jitter, at least any `Retry-After`), 12 tries in all (client-go's `maxTriesPerEvent`); other errors
 *   fail at once. A series update that finds its Event gone (404) recreates it with its series.
 * - **Notes** over 1024 bytes (the API's limit) are cut at a character boundary and counted as `truncated`.
 * - **A field manager.** Every write names `fieldManager` (default: `reportingController`), so `managedFields` and
 *   audit logs say which controller wrote the Event.
 * - Every timer runs on `scheduler`, and every duration (series window and refresh, spam filter, retries) is
 *   measured with its `now()`; every timestamp written (`eventTime`, `series.lastObservedTime`, the name's time) is
 *   its wall clock, `wallClockNow(scheduler)`. With the default `monotonicScheduler` (from `rxkube/extend`), a step of the system
 *   clock moves no duration and every stamp is `Date.now()`; inside `TestScheduler.run()` both are virtual.
 *
 * # Caveats
 * - Options are checked here: a bad `reportingController` (not a qualified name), `fieldManager` or number throws
 *   at once.
 * - A live series holds a timer until it ends (up to 6 min after its last occurrence), which keeps a Node process
 *   alive: `close()` on shutdown writes what is pending and cancels them.
 * - Events of cluster-scoped objects go to the `default` namespace, as client-go's.
 */
export function eventRecorder(connection: Connection, options: EventRecorderOptions): EventRecorder {
  const settings = resolveRecorderOptions(options, hostname);
  const { scheduler, random } = settings;
  const nameFor = eventNamer(() => wallClockNow(scheduler), random);
  const identity = { reportingController: settings.reportingController, reportingInstance: settings.reportingInstance };
  const reports = new Subject<EventReport>();
  const settled = new Subject<void>();
  const totals: Record<Counter, number> = {
    recorded: 0,
    folded: 0,
    filtered: 0,
    rejected: 0,
    truncated: 0,
    created: 0,
    updated: 0,
    retried: 0,
    failed: 0,
    dropped: 0,
  };
  const spam = settings.spamFilter === false ? undefined : new SpamFilter(settings.spamFilter);
  /** Live series by isomorphism key, least recently observed first. */
  const cache = new Map<string, Series>();
  let closed = false;

  const report = (value: EventReport): void => {
    if (!reports.closed) reports.next(value);
  };

  const writer = new EventWriter(
    { ...settings, transport: transportOf(connection), nameFor },
    {
      report,
      count: (what) => void totals[what]++,
      abandon: (series) => end(series),
      settled: () => settled.next(),
    },
  );

  /** Takes the series out of the cache: later repeats start a new Event. */
  function end(series: Series): void {
    series.timer?.unsubscribe();
    series.timer = undefined;
    if (cache.get(series.key) === series) cache.delete(series.key);
  }

  /** Ends the series and writes what the server lacks: the final count. */
  function finish(series: Series): void {
    end(series);
    if (isDirty(series)) writer.request(series);
  }

  /** Schedules the series' next check: its end, or its next refresh if that comes first. */
  function arm(series: Series): void {
    series.timer?.unsubscribe();
    const endsAt = series.lastObservedMs + settings.seriesWindowMs;
    const refreshAt =
      series.count >= 2 ? series.lastWriteRequestMs + settings.seriesRefreshMs : Number.POSITIVE_INFINITY;
    const dueAt = Math.min(endsAt, refreshAt);
    series.timer = scheduler.schedule(() => check(series, dueAt), Math.max(0, dueAt - scheduler.now()));
  }

  function check(series: Series, dueAt: number): void {
    series.timer = undefined;
    // A scheduler adds the delay to its clock, which at fractional times can land one rounding step short of `dueAt`;
    // the check is due all the same, or it would re-arm at that same instant forever.
    const now = Math.max(scheduler.now(), dueAt);
    if (now >= series.lastObservedMs + settings.seriesWindowMs) {
      finish(series);
      return;
    }
    if (series.count >= 2 && now >= series.lastWriteRequestMs + settings.seriesRefreshMs) {
      // client-go's refreshExistingEventSeries: a long series gets its count written now and then.
      if (isDirty(series)) writer.request(series);
      else series.lastWriteRequestMs = now;
    }
    arm(series);
  }

  function record(regarding: EventSubject, details: EventDetails): void {
    const now = scheduler.now();
    const stamp = wallClockNow(scheduler);
    let built;
    try {
      built = buildEvent(regarding, details, identity, stamp, nameFor);
    } catch (error) {
      totals.rejected++;
      report({ type: 'rejected', time: now, error });
      return;
    }
    if (closed) {
      totals.dropped++;
      report({ type: 'dropped', time: now, event: built.body, reason: 'Closed' });
      return;
    }
    if (spam !== undefined && !spam.accept(built.spamKey, now)) {
      totals.filtered++;
      report({ type: 'filtered', time: now, event: built.body });
      return;
    }
    totals.recorded++;
    if (built.truncated) totals.truncated++;
    const existing = cache.get(built.key);
    if (existing !== undefined && now - existing.lastObservedMs < settings.seriesWindowMs) {
      fold(existing, now, stamp);
      return;
    }
    // The previous series' timer has not run yet at this very instant: end it first, as it would have.
    if (existing !== undefined) finish(existing);
    start(built.key, built.body, now, stamp);
  }

  function fold(series: Series, now: number, stamp: number): void {
    totals.folded++;
    series.count++;
    series.lastObservedMs = now;
    series.lastObservedStamp = stamp;
    cache.delete(series.key);
    cache.set(series.key, series);
    // client-go writes the second occurrence at once and leaves later counts to the series' end or refresh.
    if (series.count === 2) {
      writer.request(series);
      arm(series);
    }
  }

  function start(key: string, body: Series['body'], now: number, stamp: number): void {
    const series: Series = {
      key,
      body,
      count: 1,
      lastObservedMs: now,
      lastObservedStamp: stamp,
      written: undefined,
      lastWriteRequestMs: now,
      timer: undefined,
      state: 'idle',
      again: false,
      attempts: 0,
      work: undefined,
    };
    cache.set(key, series);
    arm(series);
    writer.request(series);
    if (cache.size > settings.maxSeries) {
      const oldest = cache.values().next().value!;
      finish(oldest);
    }
  }

  /** Emits when every write outstanding now (after queueing unwritten series) has settled, or at the time limit. */
  function flush(flushOptions: EventFlushOptions = {}): Observable<EventFlushResult> {
    const limit = settings.checkTimeout(flushOptions.timeoutMs);
    return defer(() => {
      for (const series of [...cache.values()]) {
        if (isDirty(series)) writer.request(series);
      }
      const waiting = new Set(writer.outstanding());
      const remaining = (): number => {
        for (const series of waiting) if (!writer.isOutstanding(series)) waiting.delete(series);
        return waiting.size;
      };
      return settled.pipe(
        startWith(undefined),
        map(remaining),
        filter((pending) => pending === 0),
        take(1),
        map((): EventFlushResult => ({ complete: true, pending: 0 })),
        timeout({
          first: limit,
          scheduler,
          with: () => of<EventFlushResult>({ complete: false, pending: remaining() }),
        }),
      );
    });
  }

  function close(closeOptions: EventFlushOptions = {}): Observable<EventFlushResult> {
    return defer(() => {
      if (reports.closed) return of<EventFlushResult>({ complete: true, pending: 0 });
      closed = true;
      return flush(closeOptions).pipe(
        map((result) => {
          writer.abandonAll();
          for (const series of [...cache.values()]) end(series);
          // `settled` stays open: this very map may run inside one of its emissions.
          reports.complete();
          return result;
        }),
      );
    });
  }

  return {
    reportingController: identity.reportingController,
    reportingInstance: identity.reportingInstance,
    event(regarding, details) {
      try {
        record(regarding, details);
      } catch (error) {
        // A bug of ours must not reach the caller either.
        totals.rejected++;
        report({ type: 'rejected', time: scheduler.now(), error });
      }
    },
    reports$: reports.asObservable(),
    counts: () => ({ ...totals, pending: writer.pending }),
    flush,
    close,
  };
}
