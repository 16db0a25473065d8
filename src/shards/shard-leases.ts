/**
 * `shardLeases`: the hash ranges of one controller split among its live replicas, each range fenced by a Lease that
 * leader election acquires, renews and releases. No coordinator: every replica lists the Leases, counts the live
 * replicas by their member Leases, and takes or gives up ranges until it holds its fair share.
 */
import { distinctUntilChanged, Observable, ReplaySubject, share } from 'rxjs';
import { monotonicScheduler } from '../clock/index.js';
import { splitHashSpace } from '../sharding/index.js';
import { DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS } from '../leader/index.js';
import { ShardEngine, type ResolvedShardOptions } from './engine.js';
import type { ShardLeasesOptions } from './types.js';
import type { ShardState } from 'rxkube';
import type { Connection } from 'rxkube';

/** Default number of hash ranges: 16, more than most deployments have replicas. */
export const DEFAULT_SHARD_RANGES = 16;

/**
 * Campaigns for a fair share of `options.ranges` hash ranges of controller `options.name` and emits what this
 * replica holds, on every change.
 *
 * ```ts
 * const state$ = shardLeases(kc, { namespace: 'default', name: 'pods', identity: 'replica-1' });
 * state$.subscribe(({ open }) => console.log('may run ranges', open));
 * ```
 *
 * # Guarantees
 * - Each range is held through its own Lease `<name>-shard-<i>`, with leader election's protocol and guarantees:
 *   client-go's record, expiry by local observation on a monotonic clock, the renew deadline before anyone else may
 *   take the Lease, one term at a time, release on stop. A range is in `open` only while its Lease is held: a range
 *   whose renew deadline passed, or that a read shows taken, leaves `open` at once, in the same emission.
 * - Each replica renews a member Lease `<name>-member-<hash of identity>`; every `retryPeriod` it lists the
 *   namespace's Leases and counts the replicas whose member Lease is live by its own observation. It then holds
 *   `floor(ranges / members)` or one more ({@link fairShare}): over its share it hands the highest ranges over;
 *   under it, it campaigns for ranges whose Lease is free, expired, or held by a replica that is no longer live.
 *   It never takes a range another replica holds and renews.
 * - A handover leaves `open` first, then waits for `drained(range)`, and only then releases the range's Lease
 *   (empty holder, as leader election releases), so the taker can start at its next try, and never while a run of
 *   the range is in flight here. The Lease is renewed meanwhile.
 * - `stop$` hands every range over that way, releases the member Lease, then completes; unsubscribing releases
 *   every Lease at once, best effort, without waiting for runs.
 * - Never errors because of the cluster: failed lists and Lease requests are reported (`onEvent`) and retried.
 *   Bad options throw at call time.
 * - One engine per returned Observable, shared by its subscribers (the latest state is replayed to late ones).
 *
 * # Caveats
 * - As with leader election, no fencing token reaches the API server: a replica paused past `leaseDuration` (GC, a
 *   stopped VM) can act after a successor started, and a run that ignores its abort signal goes on after its range
 *   closed. A handover waits for such a run (the Lease stays held); a loss cannot.
 * - Replicas that see different members for a while (one just joined, one is partitioned) want shares that do not
 *   add up; ranges then move more than once before they settle. Only ranges that are free or expired are taken, so
 *   this costs time, never safety.
 * - Failover of a killed replica's ranges takes up to `leaseDuration` plus about two `retryPeriod`s (the list that
 *   notices, then the try), plus the API latency.
 */
export function shardLeases(connection: Connection, options: ShardLeasesOptions): Observable<ShardState> {
  const resolved = resolveShardOptions(options);
  const engine = new ShardEngine(connection, resolved);
  return new Observable<ShardState>((subscriber) => {
    engine.start(subscriber);
    return () => engine.teardown();
  }).pipe(
    distinctUntilChanged((a, b) => JSON.stringify(a) === JSON.stringify(b)),
    share({
      connector: () => new ReplaySubject<ShardState>(1),
      resetOnError: true,
      resetOnComplete: true,
      resetOnRefCountZero: true,
    }),
  );
}

/** Fills the defaults in and checks the options; the Lease timings are checked again by leader election. */
export function resolveShardOptions(options: ShardLeasesOptions): ResolvedShardOptions {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('shardLeases: options { namespace, name, identity } are required');
  const ranges = options.ranges ?? DEFAULT_SHARD_RANGES;
  if (!Number.isInteger(ranges) || ranges < 1 || ranges > 1024)
    throw new RangeError(`shardLeases: ranges must be an integer from 1 to 1024, got ${String(ranges)}`);
  if (typeof options.identity !== 'string' || options.identity === '')
    throw new TypeError('shardLeases: identity must be a non-empty string');
  if (typeof options.name !== 'string' || options.name.length > 230)
    throw new RangeError(
      `shardLeases: name must be a DNS-1123 subdomain of at most 230 characters, got ${JSON.stringify(options.name)}`,
    );
  for (const key of ['drained', 'onEvent', 'random', 'onWarning'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function')
      throw new TypeError(`shardLeases: ${key} must be a function`);
  }
  return {
    namespace: options.namespace,
    name: options.name,
    identity: options.identity,
    ranges,
    bounds: splitHashSpace(ranges),
    leaseDuration: options.leaseDuration ?? DEFAULT_LEASE_DURATION_MS,
    renewDeadline: options.renewDeadline ?? DEFAULT_RENEW_DEADLINE_MS,
    retryPeriod: options.retryPeriod ?? DEFAULT_RETRY_PERIOD_MS,
    scheduler: options.scheduler ?? monotonicScheduler,
    random: options.random ?? Math.random,
    drained: options.drained,
    stop$: options.stop$,
    onEvent: options.onEvent,
    onWarning: options.onWarning,
  };
}
