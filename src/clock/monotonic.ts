/**
 * The default clock of the parts that measure durations: a scheduler whose `now()` never jumps when the system
 * clock is stepped, and the wall clock read separately for the timestamps that leave the process.
 */
import { asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
// The clock `TestScheduler.run()` swaps in for RxJS's own schedulers (`asyncScheduler.now()` reads it). Node resolves
// this path and `rxjs` to the same build (both CJS, both ESM for a bundler), so it is the instance a test patches.
import { dateTimestampProvider } from 'rxjs/internal/scheduler/dateTimestampProvider';

/**
 * Read once per thread: `timeOrigin` never changes, and in Node 24 reading the global `performance` and its
 * `timeOrigin` on every call cost more than a quarter of a reading (50 against 37 ns), which the reconcile operator
 * pays twice per run.
 */
const clock = performance;
const { timeOrigin } = performance;

/**
 * A scheduler that can also read the wall clock: `now()` measures durations, `wallClock()` stamps what humans and
 * other programs read (a Lease's `renewTime`, an Event's `eventTime`).
 *
 * Implement it on a custom scheduler, or build one in a test, to tell rxkube where its timestamps come from; see
 * `wallClockNow` (from `rxkube`).
 */
export interface WallClockScheduler extends SchedulerLike {
  /** The wall-clock time, ms since the Unix epoch. It may jump (NTP steps, a VM resumed, an operator's `date -s`). */
  wallClock(): number;
}

/**
 * The default scheduler of every rxkube part: timers are `asyncScheduler`'s, and `now()` is a monotonic reading,
 * `performance.timeOrigin + performance.now()`, the way Go's `time.Now()` carries one for client-go. Inside
 * `TestScheduler.run()` it is virtual, as `asyncScheduler` is.
 *
 * ```ts
 * import { monotonicScheduler, wallClockNow } from 'rxkube';
 *
 * const started = monotonicScheduler.now();
 * // … later: a duration that a clock step cannot stretch, shrink or turn negative
 * const elapsedMs = monotonicScheduler.now() - started;
 * const stamp = new Date(wallClockNow(monotonicScheduler)).toISOString();
 * ```
 *
 * # Guarantees
 * - `now()` never decreases, and a step of the system clock (forward or backward) does not move it: a lease
 *   expiry, a deadline, a backoff, a rate limit or a requeue measured with it cannot end early or late because
 *   someone set the clock.
 * - `now()` is on the epoch scale: it equals `Date.now()` when the process started (fractional milliseconds).
 * - Timers are `asyncScheduler`'s (Node's timers, themselves on a monotonic clock).
 * - `wallClock()` is `Date.now()`, for timestamps written to the API server or shown to people (see
 *   `wallClockNow` (from `rxkube`)).
 * - **Virtual inside `TestScheduler.run()`**, exactly as `asyncScheduler`: run mode makes its timers virtual, and
 *   `now()` and `wallClock()` both read the run's virtual time. So code that takes this default runs unchanged in
 *   marble tests.
 *
 * # Caveats
 * - `now()` drifts from the wall clock by every step the system clock took since the process started, and, like
 *   Linux's `CLOCK_MONOTONIC` (and Go's monotonic reading), it does not advance while the machine is suspended.
 *   Stamp anything that must match the wall clock with `wallClockNow` (from `rxkube`), never with `now()`.
 * - Run mode is detected through RxJS's own hook (`dateTimestampProvider.delegate`), so a `TestScheduler` from
 *   another copy of RxJS than rxkube's makes neither this scheduler nor rxkube's `asyncScheduler` virtual.
 */
export const monotonicScheduler: WallClockScheduler = Object.freeze({
  now: (): number => dateTimestampProvider.delegate?.now() ?? timeOrigin + clock.now(),
  wallClock: (): number => dateTimestampProvider.delegate?.now() ?? Date.now(),
  schedule: <T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription =>
    asyncScheduler.schedule(work, delay, state),
});

/**
 * The wall-clock time on `scheduler`, ms since the epoch: its `wallClock()` when it has one (as
 * `monotonicScheduler` has), otherwise its `now()`. So `monotonicScheduler` and `asyncScheduler` give
 * `Date.now()`, and a `TestScheduler` (or either of them inside `TestScheduler.run()`) gives virtual time, which
 * keeps timestamps deterministic in tests. rxkube stamps with it everything that leaves the process: Lease
 * `acquireTime`/`renewTime`, Event `eventTime`/`series.lastObservedTime` and names, conditions'
 * `lastTransitionTime`.
 *
 * # Guarantees
 * - Reads the clock once per call; never throws for a `SchedulerLike`.
 */
export function wallClockNow(scheduler: Pick<SchedulerLike, 'now'>): number {
  const { wallClock } = scheduler as Partial<WallClockScheduler>;
  return typeof wallClock === 'function' ? wallClock.call(scheduler) : scheduler.now();
}
