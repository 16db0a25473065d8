/**
 * `leaderElection`: Lease-based leader election as an `Observable<boolean>`, compatible with client-go.
 */
import { distinctUntilChanged, Observable, ReplaySubject, share } from 'rxjs';
import type { Connection } from '../transport/index.js';
import { Elector } from './elector.js';
import { resolveLeaderOptions } from './options.js';
import { clientLeaseClient } from './client-lease-client.js';
import { TermSequence } from './terms.js';
import type { Observation } from './record.js';
import type { LeaderElectionOptions } from './types.js';

/**
 * Campaigns for the `coordination.k8s.io/v1` Lease `namespace/name` and emits whether this candidate leads.
 *
 * ```ts
 * const leading$ = leaderElection(kc, { namespace: 'kube-system', name: 'my-controller' });
 * keys$.pipe(reconcile(fn, { gate: leading$ }));  // losing the lease closes intake and aborts in-flight runs
 * ```
 *
 * # Guarantees
 * - Emits `false` at once on subscription, `true` when the Lease is acquired, `false` when leadership ends;
 *   distinct values only. Every timer and timestamp goes through `scheduler`.
 * - Immune to steps of the system clock: expiry, the renew deadline and every delay are measured with
 *   `scheduler.now()`, which by default is `monotonicScheduler`'s monotonic reading, as client-go measures
 *   them with Go's monotonic clock. Only `acquireTime` and `renewTime` are wall-clock times (`wallClockNow`), for
 *   humans and client-go; no decision reads them.
 * - client-go's protocol and `LeaseLock` fields: `holderIdentity`, `leaseDurationSeconds`, `acquireTime`,
 *   `renewTime` (MicroTime) and `leaseTransitions` (+1 when the holder changes) are written as client-go writes
 *   them, every write is a create or a resourceVersion-guarded replace, and a 409 means another candidate won. An
 *   rxkube candidate and a client-go candidate can share one Lease.
 * - Expiry is judged by the local time at which the current record was first observed plus its
 *   `leaseDurationSeconds`; the holder's `renewTime` is never compared with the local clock, so clock skew between
 *   candidates does not matter (only their clock rates must agree, within `leaseDuration / renewDeadline`). No two
 *   writes of one campaign carry the same `renewTime`, even when the wall clock goes back, so every renewal is seen
 *   as one.
 * - The holder renews every `retryPeriod`, and emits `false` once `renewDeadline` has passed since its last
 *   successful renewal was sent: that write was observed by others no earlier, so it stops leading at least
 *   `leaseDuration - renewDeadline` before anyone else may take the Lease. A read that shows another holder ends
 *   leadership at once.
 * - After leadership ends: completes (`onLost: 'stop'`) or exits the process with code 1 (`'exit'`).
 * - Unsubscribing (or completing) releases the Lease if it may be ours: an empty `holderIdentity` and
 *   `leaseDurationSeconds: 1`, as client-go's `ReleaseOnCancel`, so a successor takes over at its next try. Only the
 *   Lease this campaign last wrote is released (same resourceVersion, or the record of a write whose answer was
 *   lost); one written since is left alone. The release is best effort, bounded by `renewDeadline`, and its outcome
 *   is reported, never thrown.
 * - One term at a time: a new subscription (`repeat()` after a loss, a resubscription) makes its first request only
 *   after the previous term's release has settled, as client-go's `Run` returns only after `release`.
 * - Never errors because of the cluster: failed requests (network, 403, 5xx, timeouts) are reported to `onEvent`
 *   and retried at the next period. Bad options throw at call time.
 * - One campaign per returned Observable, shared by its subscribers (the latest value is replayed to late ones);
 *   the last unsubscribe ends it. Subscribing again after it ended starts a new campaign.
 *
 * # Caveats
 * - No fencing token reaches the API server: like client-go, a holder that is paused (GC, swap, a stopped VM) past
 *   `leaseDuration` can act after a successor started. `false` arrives on time only while the event loop runs.
 * - Two `leaderElection` calls with the same `identity` are the same candidate to the Lease: both would lead.
 *   Terms follow one another only within one returned Observable.
 * - With a custom `scheduler`, its `now()` is the clock: `asyncScheduler` reads `Date.now()` and so is not immune to
 *   clock steps. In virtual time, pass the `TestScheduler` (its `now()` serves as both clocks).
 * - `preferredHolder` and `strategy` (coordinated leader election) are kept as found, not acted upon.
 */
export function leaderElection(connection: Connection, options: LeaderElectionOptions): Observable<boolean> {
  return observedElection(connection, options, undefined);
}

/**
 * {@link leaderElection}, each term starting from `observed()` (when given) instead of an empty observation: what
 * another part of this process (the shard directory, which lists every Lease of a sharded controller) has seen of
 * the same Lease counts, so a candidate need not wait out a lease duration the process already watched pass.
 * Internal.
 *
 * # Guarantees
 * - Everything {@link leaderElection} guarantees; `observed()` must return a local observation of the same Lease on
 *   the same `scheduler`'s clock, which the term then owns (a copy: later lists must not move it under the term).
 */
export function observedElection(
  connection: Connection,
  options: LeaderElectionOptions,
  observed: (() => Observation) | undefined,
): Observable<boolean> {
  const resolved = resolveLeaderOptions(options);
  const client = clientLeaseClient(connection, resolved.namespace, resolved.name, resolved.onWarning);
  const terms = new TermSequence();
  return new Observable<boolean>((subscriber) => {
    const elector = new Elector(client, resolved, subscriber, terms, observed?.());
    elector.start();
    return () => elector.teardown();
  }).pipe(
    distinctUntilChanged(),
    share({
      connector: () => new ReplaySubject<boolean>(1),
      resetOnError: true,
      resetOnComplete: true,
      resetOnRefCountZero: true,
    }),
  );
}
