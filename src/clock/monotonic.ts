/**
 * The default clock of the parts that measure durations: a scheduler whose `now()` never jumps when the system
 * clock is stepped, and the wall clock read separately for the timestamps that leave the process.
 */
import { asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';

/**
 * A scheduler that can also read the wall clock: `now()` measures durations, `wallClock()` stamps what humans and
 * other programs read (a Lease's `renewTime`, an Event's `eventTime`).
 *
 * Implement it on a custom scheduler, or build one in a test, to tell rxkube where its timestamps come from; see
 * {@link wallClockNow}.
 */
export interface WallClockScheduler extends SchedulerLike {
  /** The wall-clock time, ms since the Unix epoch. It may jump (NTP steps, a VM resumed, an operator's `date -s`). */
  wallClock(): number;
}

/**
 * The scheduler rxkube's leader election and manager use by default: timers are `asyncScheduler`'s, and `now()` is
 * a monotonic reading, `performance.timeOrigin + performance.now()`, the way Go's `time.Now()` carries one for
 * client-go.
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
 *   expiry, a deadline or a threshold measured with it cannot end early or late because someone set the clock.
 * - `now()` is on the epoch scale: it equals `Date.now()` when the process started (fractional milliseconds), so
 *   `new Date(scheduler.now())` stays a plausible date in logs and events.
 * - Timers are `asyncScheduler`'s (Node's timers, themselves on a monotonic clock).
 * - `wallClock()` is `Date.now()`, for timestamps written to the API server (see {@link wallClockNow}).
 *
 * # Caveats
 * - `now()` drifts from the wall clock by every step the system clock took since the process started, and, like
 *   Linux's `CLOCK_MONOTONIC` (and Go's monotonic reading), it does not advance while the machine is suspended.
 *   Stamp anything that must match the wall clock with {@link wallClockNow}.
 * - `TestScheduler.run()` makes `asyncScheduler`'s timers virtual but not this clock: in virtual time, pass the
 *   `TestScheduler` (or the virtual cluster's scheduler) explicitly.
 */
export const monotonicScheduler: WallClockScheduler = Object.freeze({
  now: (): number => performance.timeOrigin + performance.now(),
  wallClock: (): number => Date.now(),
  schedule: <T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription =>
    asyncScheduler.schedule(work, delay, state),
});

/**
 * The wall-clock time on `scheduler`, ms since the epoch: its `wallClock()` when it has one (as
 * {@link monotonicScheduler} has), otherwise its `now()`. So `asyncScheduler` gives `Date.now()`, and a
 * `TestScheduler` gives virtual time, which keeps timestamps deterministic in tests.
 *
 * # Guarantees
 * - Reads the clock once per call; never throws for a `SchedulerLike`.
 */
export function wallClockNow(scheduler: SchedulerLike): number {
  const { wallClock } = scheduler as Partial<WallClockScheduler>;
  return typeof wallClock === 'function' ? wallClock.call(scheduler) : scheduler.now();
}
