/**
 * `coalesceBursts`: groups the deltas a source emits in one synchronous burst into one batch, for `informerFromSource`.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { asapScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import type { WatchEvent } from '../watch/index.js';

const NOTHING: readonly never[] = Object.freeze([]);

/**
 * Gathers everything a delta source emits until `scheduler` next runs an action into one array: with the default
 * `asapScheduler`, the deltas emitted in one synchronous run (and the microtasks queued before the flush). Put it
 * in front of {@link informerFromSource} when a custom source emits single deltas in bursts, so that a burst costs
 * one store `produce` and one snapshot instead of one per delta. The HTTP transport and the virtual cluster batch
 * by network chunk already; a source of arrays gets its arrays merged with whatever else arrived in the burst.
 *
 * # Guarantees
 * - Every delta is emitted exactly once and in order; arrays in the input are flattened into their burst. An input
 *   array is passed on without copying when it is alone in its burst. Never an empty array.
 * - At most one flush is scheduled per burst; a delta emitted while a batch is being delivered (re-entrantly) starts
 *   the next burst.
 * - When the source completes or errors, the pending burst is emitted first, synchronously, then the completion or
 *   the error: nothing that arrived is lost.
 * - Unsubscribing cancels the scheduled flush and drops the pending burst along with the subscriber.
 *
 * # Caveats
 * - Delivery moves from inside the source's emission to the scheduler's next action (a microtask by default): a
 *   caller that emits a delta and reads the informer's snapshot in the same synchronous run sees it without the
 *   delta. In a marble test, pass the `TestScheduler` to flush within the same frame.
 * - A burst is as large as the source makes it: a source that emits synchronously without end never flushes (it
 *   would hold the thread anyway).
 */
export function coalesceBursts<T extends KubernetesObject>(
  scheduler: SchedulerLike = asapScheduler,
): OperatorFunction<WatchEvent<T> | readonly WatchEvent<T>[], readonly WatchEvent<T>[]> {
  if (typeof scheduler?.schedule !== 'function' || typeof scheduler.now !== 'function') {
    throw new TypeError('coalesceBursts: the scheduler must be an RxJS SchedulerLike (with schedule and now)');
  }
  return (source) =>
    new Observable<readonly WatchEvent<T>[]>((subscriber) => {
      let pending: readonly WatchEvent<T>[] = NOTHING;
      /** Whether `pending` is an array of ours (appendable), not one the source emitted. */
      let owned = false;
      let flush: Subscription | undefined;
      const deliver = (): void => {
        flush = undefined;
        const batch = pending;
        pending = NOTHING;
        owned = false;
        if (batch.length > 0) subscriber.next(batch);
      };
      const append = (events: readonly WatchEvent<T>[]): void => {
        if (pending.length === 0) {
          pending = events;
          return;
        }
        const into = owned ? (pending as WatchEvent<T>[]) : [...pending];
        for (const event of events) into.push(event);
        pending = into;
        owned = true;
      };
      const subscription = source.subscribe({
        next: (value) => {
          if (Array.isArray(value)) {
            append(value as readonly WatchEvent<T>[]);
          } else if (owned) {
            (pending as WatchEvent<T>[]).push(value as WatchEvent<T>);
          } else {
            pending = [...pending, value as WatchEvent<T>];
            owned = true;
          }
          if (flush === undefined && pending.length > 0) flush = scheduler.schedule(deliver);
        },
        error: (error: unknown) => {
          flush?.unsubscribe();
          deliver();
          subscriber.error(error);
        },
        complete: () => {
          flush?.unsubscribe();
          deliver();
          subscriber.complete();
        },
      });
      return () => {
        flush?.unsubscribe();
        flush = undefined;
        pending = NOTHING;
        subscription.unsubscribe();
      };
    });
}
