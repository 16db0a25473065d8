/**
 * Candidates in virtual time for the leader-election specs: each subscribes at a given time through its own
 * transport to a {@link VirtualLeaseServer} (for the properties, a `ScriptedLeaseServer`), optionally with a skewed
 * clock or a wall clock that is stepped, and records what it emitted and reported against the true (unskewed) time.
 */
import { expect } from 'chai';
import { repeat, timer, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import type { WallClockScheduler } from '../../src/clock/index.js';
import { TestScheduler } from 'rxjs/testing';
import { leaderElection, type LeaderElectionOptions, type LeaderEvent } from '../../src/leader/index.js';
import { VirtualLeaseServer, type LeaseServer } from './lease-server.js';
import { expectDisjoint, spansOf } from './spans.js';

/**
 * Runs `body` inside `TestScheduler.run` (1 frame = 1 ms) with a fresh server (a virtual cluster's, unless
 * `scripted`); returns what it returns.
 */
export function election<R>(
  body: (env: { scheduler: TestScheduler; server: LeaseServer }) => R,
  latency?: (candidate: string) => number,
  server: (scheduler: TestScheduler, latency?: (candidate: string) => number) => LeaseServer = (s, l) =>
    new VirtualLeaseServer(s, l),
): R {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  return scheduler.run(() => body({ scheduler, server: server(scheduler, latency) }));
}

/** A scheduler whose clock reads `skewMs` off the true one; its timers run at the true rate. */
export function skewed(scheduler: SchedulerLike, skewMs: number): SchedulerLike {
  return {
    now: () => scheduler.now() + skewMs,
    schedule: <T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription =>
      scheduler.schedule(work, delay, state),
  };
}

/** A step of a machine's wall clock: at true time `at`, it jumps by `by` ms (negative: back). */
export interface ClockStep {
  readonly at: number;
  readonly by: number;
}

/**
 * A machine as the default scheduler sees it: timers and the monotonic `now()` run at the true rate (offset by
 * `skewMs`), while its wall clock, read only for the Lease's timestamps, is also moved by `steps`.
 */
export function machine(scheduler: SchedulerLike, skewMs: number, steps: readonly ClockStep[]): WallClockScheduler {
  return {
    now: () => scheduler.now() + skewMs,
    wallClock: () =>
      scheduler.now() + skewMs + steps.reduce((sum, step) => (step.at <= scheduler.now() ? sum + step.by : sum), 0),
    schedule: <T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription =>
      scheduler.schedule(work, delay, state),
  };
}

/** The options every spec candidate shares: client-go's defaults and a fixed jitter sample (0.5 → 3 200 ms). */
export const base = { namespace: 'default', name: 'lock', random: () => 0.5 } as const;

export interface CandidateOptions extends Partial<LeaderElectionOptions> {
  /** True time of subscription (default 0). */
  readonly at?: number;
  /** True time of unsubscription, if any. */
  readonly until?: number;
  /** Clock offset of this candidate, ms. */
  readonly skew?: number;
  /** Steps of this candidate's wall clock (its monotonic clock is not moved by them). */
  readonly steps?: readonly ClockStep[];
  /** Campaign again after a loss, as the manager's `onLost: 'standby'` does (`repeat` with a zero delay). */
  readonly standby?: boolean;
  /** After each loss, the next request (the release's read) is answered this much later than usual. */
  readonly lateRelease?: number;
}

export interface Candidate {
  readonly identity: string;
  /** `"<true time> <value>"`, plus `"<time> complete"`. */
  readonly timeline: string[];
  readonly events: LeaderEvent[];
  /** The `[start, end)` spans in which it led, in true time; an open span ends at `Infinity`. */
  spans(): Array<readonly [number, number]>;
  /** Unsubscribes now. */
  stop(): void;
}

/** Subscribes candidate `identity` at `options.at`. */
export function candidate(
  env: { scheduler: TestScheduler; server: LeaseServer },
  identity: string,
  options: CandidateOptions = {},
): Candidate {
  const { scheduler, server } = env;
  const { at = 0, until, skew = 0, steps, standby = false, lateRelease, ...rest } = options;
  const timeline: string[] = [];
  const events: LeaderEvent[] = [];
  const spans: Array<[number, number]> = [];
  let subscription: Subscription | undefined;
  const end = (): void => {
    const open = spans[spans.length - 1];
    if (open !== undefined && open[1] === Number.POSITIVE_INFINITY) open[1] = scheduler.now();
  };
  const onEvent = (event: LeaderEvent): void => {
    events.push(event);
    if (event.type === 'lost' && lateRelease !== undefined) server.failNext(identity, { delay: lateRelease });
  };
  const election$ = leaderElection(server.transport(identity), {
    ...base,
    identity,
    scheduler: steps === undefined ? skewed(scheduler, skew) : machine(scheduler, skew, steps),
    onEvent,
    ...rest,
  });
  const leading$ = standby ? election$.pipe(repeat({ delay: () => timer(0, scheduler) })) : election$;
  scheduler.schedule(() => {
    subscription = leading$.subscribe({
      next: (value) => {
        timeline.push(`${scheduler.now()} ${value}`);
        if (value) spans.push([scheduler.now(), Number.POSITIVE_INFINITY]);
        else end();
      },
      complete: () => {
        timeline.push(`${scheduler.now()} complete`);
        end();
      },
    });
  }, at);
  const stop = (): void => {
    end();
    subscription?.unsubscribe();
  };
  if (until !== undefined) scheduler.schedule(stop, until);
  return { identity, timeline, events, spans: () => spans, stop };
}

/** Fails when two candidates' leading spans overlap. */
export function expectNoOverlap(candidates: readonly Candidate[]): void {
  expectDisjoint(spansOf(candidates));
}

/** The events of a candidate as short strings, `"<time> <type> <detail>"`, leaving out renewals. */
export function described(events: readonly LeaderEvent[]): string[] {
  return events
    .filter((e) => e.type !== 'renewed')
    .map((e) => {
      switch (e.type) {
        case 'acquired':
          return `${e.at} acquired ${e.leaseTransitions}`;
        case 'lost':
          return `${e.at} lost ${e.reason}${e.holder === undefined ? '' : ` ${e.holder}`}`;
        case 'leader':
          return `${e.at} leader ${e.holder || '(none)'}`;
        case 'conflict':
        case 'failed':
          return `${e.at} ${e.type} ${e.phase} ${e.error.message}`;
        default:
          return `${e.at} ${e.type}`;
      }
    });
}
