/**
 * The shared stream of pictures every browser is sent: many changes a second in, at most one serialized picture per
 * interval out, read and serialized once for every connection.
 * @module
 */
import {
  map,
  merge,
  Observable,
  shareReplay,
  startWith,
  Subject,
  Subscription,
  throttleTime,
  type SchedulerLike,
} from 'rxjs';
import { toFrame, type Frame } from './event-stream.js';

/** What {@link pictures} reads from. */
export interface PictureSources {
  /**
   * Streams that run only while someone watches (the views): subscribed when the first browser connects, left when
   * the last one goes. Their emissions say the picture changed.
   */
  readonly live: readonly Observable<unknown>[];
  /** Changes of what runs anyway (the queue hook, leadership, informer health, the browser count). */
  readonly changes: Observable<unknown>;
}

/**
 * Pictures of `read()`, serialized with `toFrame`: one at once on subscribe, then at most one per `intervalMs`
 * while anything changes.
 *
 * # Guarantees
 * - The `live` streams are subscribed before the first picture is read, and what they emit while being subscribed
 *   is not a change: the first picture sees every view built from the current snapshots.
 * - `throttleTime` with `leading` and `trailing`: a change after a quiet interval is read at once; during a burst,
 *   the state at the end of each interval is read then. So a picture is at most `intervalMs` behind, and no more
 *   than one is read per interval.
 * - `read` is called, and its result serialized, once per picture whatever the number of subscribers; the latest
 *   picture is replayed to a new subscriber; when the last one leaves, the `live` streams are left.
 */
export function pictures<T>(
  sources: PictureSources,
  read: () => T,
  intervalMs: number,
  scheduler: SchedulerLike,
): Observable<Frame> {
  return new Observable<Frame>((subscriber) => {
    const subscription = new Subscription();
    const liveChanges = new Subject<void>();
    // The views first: what they emit as they start (their current snapshot) reaches no one yet, and the first
    // read below sees them built.
    subscription.add(
      merge(...sources.live).subscribe({
        next: () => liveChanges.next(),
        error: (error: unknown) => subscriber.error(error),
      }),
    );
    subscription.add(
      merge(liveChanges, sources.changes)
        .pipe(
          startWith(undefined),
          throttleTime(intervalMs, scheduler, { leading: true, trailing: true }),
          map(() => toFrame(read())),
        )
        .subscribe(subscriber),
    );
    return subscription;
  }).pipe(shareReplay({ bufferSize: 1, refCount: true }));
}
