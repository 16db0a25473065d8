/**
 * The shapes of leader election: the Lease as it travels on the wire, the options, and the events an elector
 * reports besides its boolean.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type { WarningHandler } from 'rxkube/extend';

/**
 * `coordination.k8s.io/v1` LeaseSpec as JSON. Times are `MicroTime` strings (RFC 3339 with microseconds, UTC).
 * Fields this package does not write (`preferredHolder`, `strategy`, anything newer) are carried through untouched.
 */
export interface LeaseSpec {
  readonly holderIdentity?: string | null;
  readonly leaseDurationSeconds?: number | null;
  readonly acquireTime?: string | null;
  readonly renewTime?: string | null;
  readonly leaseTransitions?: number | null;
  readonly preferredHolder?: string | null;
  readonly strategy?: string | null;
  readonly [field: string]: unknown;
}

/** A `coordination.k8s.io/v1` Lease as JSON: what the lease client reads and writes. */
export interface LeaseObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    /** The optimistic-concurrency precondition of a replace. */
    readonly resourceVersion?: string;
    readonly [field: string]: unknown;
  };
  readonly spec?: LeaseSpec;
  readonly [field: string]: unknown;
}

/**
 * What an elector reports besides its boolean, in order, to `onEvent`. `at` is the scheduler's `now()` (with the
 * default scheduler, a monotonic reading on the epoch scale).
 *
 * - `acquired`: this candidate became the holder (`leaseTransitions` as written).
 * - `renewed`: the holder renewed its lease.
 * - `lost`: the holder stopped leading: it could not renew within `renewDeadline` (`renewDeadline`), or a fresh
 *   read showed another holder (`takenOver`). `false` was emitted just before.
 * - `leader`: the observed holder changed (`''`: nobody holds it); client-go's `OnNewLeader`.
 * - `conflict`: another writer won the race (409 on a create or a resourceVersion-guarded replace). Expected
 *   between candidates; the elector carries on.
 * - `failed`: a request failed (network, 403, 500, a timeout, a malformed answer); retried at the next period.
 * - `released`: the lease was handed back (empty holder) on unsubscribe or `stop$`.
 */
export type LeaderEvent =
  | {
      /** This candidate became the holder. */
      readonly type: 'acquired';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** This candidate's identity, as written to `holderIdentity`. */
      readonly identity: string;
      /** `leaseTransitions` as written. */
      readonly leaseTransitions: number;
    }
  | {
      /** The holder renewed its lease. */
      readonly type: 'renewed';
      /** The scheduler's time, ms. */
      readonly at: number;
    }
  | {
      /** The holder stopped leading. */
      readonly type: 'lost';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** `renewDeadline`: no renewal within the deadline; `takenOver`: a fresh read showed another holder. */
      readonly reason: 'renewDeadline' | 'takenOver';
      /** The new holder, when one was seen. */
      readonly holder?: string;
    }
  | {
      /** The observed holder changed. */
      readonly type: 'leader';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** The new holder's identity; `''` when nobody holds the lease. */
      readonly holder: string;
    }
  | {
      /** Another writer won the race for the Lease (409). */
      readonly type: 'conflict';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** What the elector was doing. */
      readonly phase: 'acquire' | 'renew' | 'release';
      /** The 409 as received. */
      readonly error: Error;
    }
  | {
      /** A request failed; retried at the next period. */
      readonly type: 'failed';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** What the elector was doing. */
      readonly phase: 'acquire' | 'renew' | 'release';
      /** The failure. */
      readonly error: Error;
    }
  | {
      /** The lease was handed back (empty holder). */
      readonly type: 'released';
      /** The scheduler's time, ms. */
      readonly at: number;
    };

/** Options of `leaderElection`. Durations are milliseconds. */
export interface LeaderElectionOptions {
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease (a DNS subdomain), shared by every candidate of one election. */
  readonly name: string;
  /**
   * This candidate's identity, written as `holderIdentity`; unique per process. Default `<hostname>_<random UUID>`,
   * controller-runtime's choice.
   */
  readonly identity?: string;
  /**
   * How long a lease lasts without renewal, as others judge it from when they observed it. A whole number of
   * seconds (the Lease stores seconds). Default 15 000.
   */
  readonly leaseDuration?: number;
  /** How long the holder keeps trying to renew before it gives up leading. Default 10 000. */
  readonly renewDeadline?: number;
  /** Time between attempts; jittered by up to 1.2× while not leading. Default 2 000. */
  readonly retryPeriod?: number;
  /**
   * Every timer and every time reading goes through it: `now()` measures expiry, the renew deadline and delays (a
   * step of this clock can make two leaders, so it must be monotonic), and `wallClockNow(scheduler)` stamps
   * `acquireTime` and `renewTime`. Default `monotonicScheduler`: monotonic `now()`, `Date.now()` for the
   * stamps. A `TestScheduler` runs it all in virtual time.
   */
  readonly scheduler?: SchedulerLike;
  /** Random source in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
  /**
   * What happens after leadership is lost: `'stop'` (default) emits `false` and completes; `'exit'` emits `false`
   * and exits the process with code 1, as controller-runtime does. Campaign again with `repeat()` after a stop.
   */
  readonly onLost?: 'stop' | 'exit';
  /** Called for `onLost: 'exit'`. Default `process.exit`; tests replace it. */
  readonly exit?: (code: number) => void;
  /**
   * On its first value: stop renewing, emit `false`, release the lease, and complete once the release is settled
   * (bounded by `renewDeadline`). For a graceful shutdown that must know the lease is handed over.
   */
  readonly stop$?: Observable<unknown>;
  /**
   * Receives every {@link LeaderEvent}. Default: failures, and losses, are reported through `reportError` (a process
   * warning unless RxJS's `config.onUnhandledError` is set), the first of each run of failures only.
   */
  readonly onEvent?: (event: LeaderEvent) => void;
  /** Receives the API server's warnings on the Lease requests. Default `printWarningOnce`; a manager passes its log. */
  readonly onWarning?: WarningHandler;
}

/** What the elector did with the Lease when a `conflict` or `failed` {@link LeaderEvent} happened. */
export type LeaderPhase = Extract<LeaderEvent, { readonly type: 'failed' }>['phase'];
