/**
 * The shapes of Lease-fenced sharding: the options, the state a replica reports, and its events.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type { LeaderEvent } from 'rxkube';
import type { WarningHandler } from '../transport/index.js';

/** Options of `shardLeases`. Durations are milliseconds; the Lease timings are leader election's, per range. */
export interface ShardLeasesOptions {
  /** Namespace of the Leases. */
  readonly namespace: string;
  /**
   * The sharded controller's name, the prefix of its Leases: `<name>-shard-<i>` per range, `<name>-member-<hash>` per
   * replica. A DNS-1123 subdomain short enough for those names.
   */
  readonly name: string;
  /** This replica's identity, written as `holderIdentity` of its Leases; unique per process. */
  readonly identity: string;
  /** How many hash ranges the key space is cut into; more than the replicas. An integer from 1 to 1024. Default 16. */
  readonly ranges?: number;
  /** As leader election's, per range Lease and member Lease. Default 15 000. */
  readonly leaseDuration?: number;
  /** As leader election's. Default 10 000. */
  readonly renewDeadline?: number;
  /** As leader election's; also how often the replica lists the Leases and rebalances. Default 2 000. */
  readonly retryPeriod?: number;
  /** Every timer and time reading. Default `monotonicScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Random source in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
  /**
   * Called when a range is handed over, after it left `open`: emits (or completes) once no run of a key in that range
   * is in flight any more. Only then is its Lease released. Default: at once (nothing runs).
   */
  readonly drained?: (range: number) => Observable<unknown>;
  /**
   * On its first value: stop taking ranges, hand every range over (close, drain, release), release the member
   * Lease, then complete.
   */
  readonly stop$?: Observable<unknown>;
  /** Receives every {@link ShardEvent}. Default: none. */
  readonly onEvent?: (event: ShardEvent) => void;
  /** Receives the API server's warnings on the Lease requests. Default `printWarningOnce`. */
  readonly onWarning?: WarningHandler;
}

/** What a replica holds, as `shardLeases` emits it on every change. */
export interface ShardState {
  /** The ranges this replica may run now: their Lease is held and no handover has begun. Sorted. */
  readonly open: readonly number[];
  /** The ranges being handed over: closed, draining their runs, their Lease still held until released. Sorted. */
  readonly draining: readonly number[];
  /** The ranges this replica campaigns for. Sorted. */
  readonly campaigning: readonly number[];
  /** The live replicas as this replica last saw them (itself included), sorted. */
  readonly members: readonly string[];
  /** How many ranges this replica should hold among those members. */
  readonly share: number;
  /** How many ranges there are. */
  readonly ranges: number;
}

/**
 * What a replica's sharding reports besides its state.
 *
 * - `lease`: an event of one range's elector (acquired, renewed, lost, …), as leader election reports it.
 * - `handover`: this replica began giving range `range` up (over its share, or stopping): it is closed, its runs drain.
 * - `released`: the range's Lease was handed back after its runs drained.
 * - `members`: the live replicas changed.
 * - `failed`: listing the Leases failed; retried at the next period.
 */
export type ShardEvent =
  | {
      /** An event of one range's elector. */
      readonly type: 'lease';
      /** The range. */
      readonly range: number;
      /** The elector's event. */
      readonly event: LeaderEvent;
    }
  | {
      /** This replica began handing range `range` over. */
      readonly type: 'handover';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** The range. */
      readonly range: number;
      /** Why: over its share, or stopping. */
      readonly reason: 'rebalance' | 'stop';
    }
  | {
      /** The range's Lease was released after its runs drained. */
      readonly type: 'released';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** The range. */
      readonly range: number;
    }
  | {
      /** The live replicas changed. */
      readonly type: 'members';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** The live replicas, sorted. */
      readonly members: readonly string[];
    }
  | {
      /** Listing the Leases failed. */
      readonly type: 'failed';
      /** The scheduler's time, ms. */
      readonly at: number;
      /** The failure. */
      readonly error: Error;
    };
