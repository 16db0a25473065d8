/**
 * Where the in-memory server gets time and chance from: every timer, timestamp, uid and random name of the core
 * goes through one {@link ServerRuntime}, so the same core runs in real time over HTTP and in virtual time in
 * process.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/**
 * Time and randomness of one server.
 *
 * # Guarantees
 * - `now()` is the scheduler's clock; `after`/`every` run their work on the scheduler and return a cancel function
 *   that is safe to call more than once.
 * - `defer` runs work after the current synchronous step (a commit and its listeners), never inside it.
 */
export interface ServerRuntime {
  readonly scheduler: SchedulerLike;
  /** Milliseconds since the epoch, on the scheduler's clock. */
  now(): number;
  /** A number in [0, 1). */
  random(): number;
  /** A version-4 shaped UUID. */
  uuid(): string;
  /** Runs `work` once after `ms`; returns its cancel function. */
  after(ms: number, work: () => void): () => void;
  /** Runs `work` every `ms`; returns its cancel function. */
  every(ms: number, work: () => void): () => void;
  /** Runs `work` once the current synchronous step is over. */
  defer(work: () => void): void;
}

function scheduled(scheduler: SchedulerLike, owner: Subscription) {
  const track = (subscription: Subscription): (() => void) => {
    owner.add(subscription);
    return () => {
      subscription.unsubscribe();
      owner.remove(subscription);
    };
  };
  return {
    after(ms: number, work: () => void): () => void {
      let cancel: () => void = () => undefined;
      cancel = track(
        scheduler.schedule(
          () => {
            cancel();
            work();
          },
          Math.max(0, ms),
        ),
      );
      return cancel;
    },
    every(ms: number, work: () => void): () => void {
      const period = Math.max(1, ms);
      return track(
        scheduler.schedule(function (this: SchedulerAction<unknown>) {
          work();
          this.schedule(undefined, period);
        }, period),
      );
    },
  };
}

/**
 * The runtime of the HTTP server: the async scheduler (real time), crypto uids, `Math.random`, microtasks.
 *
 * # Guarantees
 * - Behaves as the server did before the runtime existed: `setTimeout`/`setInterval` timers through
 *   `asyncScheduler`, `Date.now()` through its clock, `randomUUID`, and deferred work as a microtask.
 */
export function realRuntime(): ServerRuntime {
  const scheduler = asyncScheduler;
  return {
    scheduler,
    now: () => scheduler.now(),
    random: Math.random,
    uuid: randomUUID,
    ...scheduled(scheduler, new Subscription()),
    defer: queueMicrotask,
  };
}

/**
 * A deterministic runtime: time from `scheduler` (a `TestScheduler`, a `VirtualTimeScheduler`), chance from a
 * PRNG seeded with `seed`, deferred work as a zero-delay action of the scheduler.
 *
 * # Guarantees
 * - The same seed and the same sequence of calls give the same numbers, uids and names.
 * - `cancelAll()` cancels every timer still pending (the cluster closed).
 */
export function seededRuntime(scheduler: SchedulerLike, seed: number): ServerRuntime & { cancelAll(): void } {
  const random = seededRandom(seed);
  const owner = new Subscription();
  const timers = scheduled(scheduler, owner);
  return {
    scheduler,
    now: () => scheduler.now(),
    random,
    uuid: () => uuidFrom(random),
    ...timers,
    defer: (work) => {
      timers.after(0, work);
    },
    cancelAll: () => owner.unsubscribe(),
  };
}

/**
 * mulberry32: a small, fast 32-bit PRNG with a full period, good enough for names and uids.
 *
 * # Guarantees
 * - The same seed gives the same sequence, in [0, 1).
 *
 * # Caveats
 * - Not for secrets: its state is 32 bits.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuidFrom(random: () => number): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
