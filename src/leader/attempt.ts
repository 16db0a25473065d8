/**
 * One try at the Lease, as client-go's `tryAcquireOrRenew` and `release` make it, as cold Observables over a
 * {@link LeaseClient}: the timing around them belongs to the elector.
 */
import { catchError, defer, map, mergeMap, of, type Observable, type SchedulerLike } from 'rxjs';
import { wallClockNow } from '../clock/index.js';
import { ApiError, isAlreadyExists, isConflict } from '../transport/index.js';
import type { LeaseClient } from './lease-client.js';
import {
  newLease,
  withRecord,
  type LeaderRecord,
  type Observation,
  type TermWrites,
  type WallStamps,
} from './record.js';
import type { LeaseObject } from './types.js';

/**
 * What one attempt needs; `observation` is updated by every read and write it makes, `writes` by every write.
 * Durations and expiry are read from `scheduler.now()` (monotonic by default); the times written into the Lease from
 * its wall clock (`wallClockNow`), through `stamps`.
 */
export interface AttemptContext {
  readonly client: LeaseClient;
  readonly observation: Observation;
  /** This term's writes, so that a teardown knows a write may have landed and a release clears only its own. */
  readonly writes: TermWrites;
  readonly stamps: WallStamps;
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  readonly leaseDurationSeconds: number;
  readonly scheduler: SchedulerLike;
}

/**
 * How an attempt ended. `held`: another candidate holds an unexpired lease. `conflict`: another writer won the race
 * (409). `failed`: anything else went wrong. `success` carries the local time the winning write was sent: the
 * holder's renew deadline counts from there, which is no later than any other candidate's observation of it.
 */
export type AttemptResult =
  | { readonly kind: 'success'; readonly sentAt: number; readonly leaseTransitions: number }
  | { readonly kind: 'held'; readonly holder: string }
  | { readonly kind: 'conflict'; readonly error: Error }
  | { readonly kind: 'failed'; readonly error: Error };

/**
 * client-go's `tryAcquireOrRenew`:
 * 1. a holder whose observed lease is still valid replaces its last written Lease at once (no read);
 * 2. otherwise (or if that fails) it reads the Lease; a missing Lease is created;
 * 3. a Lease held by someone else and not expired by local observation is left alone;
 * 4. otherwise it is replaced under its resourceVersion: `acquireTime` and `leaseTransitions` kept when this
 *    candidate already held it, `leaseTransitions + 1` when the holder changes.
 *
 * # Guarantees
 * - Never errors: every failure is a result. Unsubscribing aborts the request in flight.
 */
export function tryAcquireOrRenew(context: AttemptContext): Observable<AttemptResult> {
  const { client, observation, identity, scheduler } = context;
  const slowPath = (): Observable<AttemptResult> =>
    client.get().pipe(mergeMap((lease) => (lease === undefined ? create(context) : takeOrRenew(context, lease))));
  return defer(() => {
    const previous = observation.current();
    const fast =
      observation.lease !== undefined &&
      previous !== undefined &&
      previous.holderIdentity === identity &&
      observation.isValid(scheduler.now());
    if (!fast) return slowPath();
    const renewal = renewedRecord(context, previous, true);
    return write(context, client.replace(withRecord(observation.lease!, renewal)), renewal).pipe(
      catchError(() => slowPath()),
    );
  }).pipe(catchError((error: unknown) => of(failure(error))));
}

/**
 * client-go's `release`: reads the Lease and, only if it is still the Lease this term last wrote (its
 * resourceVersion, or the record of a write whose answer was lost) and names this candidate, writes an empty holder
 * with `leaseDurationSeconds: 1` and fresh times (transitions kept), so a successor need not wait out the duration.
 * A Lease written since, by anyone (a later term of this same identity included), is left alone. Emits `true` when
 * it released, `false` when there was nothing of ours to release; errors as the client does.
 */
export function releaseLease(context: AttemptContext): Observable<boolean> {
  const { client, observation, writes, identity, scheduler } = context;
  return client.get().pipe(
    mergeMap((lease) => {
      if (lease === undefined) return of(false);
      observation.read(lease, scheduler.now());
      const record = observation.current()!;
      if (record.holderIdentity !== identity || !writes.wrote(lease)) return of(false);
      const now = context.stamps.next(wallClockNow(scheduler));
      const released: LeaderRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: record.leaseTransitions,
      };
      return write(context, client.replace(withRecord(lease, released)), released).pipe(map(() => true));
    }),
  );
}

function create(context: AttemptContext): Observable<AttemptResult> {
  const record = renewedRecord(context, undefined, false);
  return write(context, context.client.create(newLease(context.namespace, context.name, record)), record);
}

function takeOrRenew(context: AttemptContext, lease: LeaseObject): Observable<AttemptResult> {
  const { observation, identity, scheduler } = context;
  observation.read(lease, scheduler.now());
  const seen = observation.current()!;
  const mine = seen.holderIdentity === identity;
  if (seen.holderIdentity !== '' && !mine && observation.isValid(scheduler.now())) {
    return of({ kind: 'held', holder: seen.holderIdentity } as const);
  }
  const record = renewedRecord(context, seen, mine);
  return write(context, context.client.replace(withRecord(lease, record)), record);
}

/** This candidate's record at this instant; a renewal keeps the acquire time and transition count. */
function renewedRecord(context: AttemptContext, seen: LeaderRecord | undefined, mine: boolean): LeaderRecord {
  const now = context.stamps.next(wallClockNow(context.scheduler));
  return {
    holderIdentity: context.identity,
    leaseDurationSeconds: context.leaseDurationSeconds,
    acquireTime: mine ? seen?.acquireTime : now,
    renewTime: now,
    leaseTransitions: seen === undefined ? 0 : mine ? seen.leaseTransitions : seen.leaseTransitions + 1,
  };
}

/** Sends a write, noting when it left; the stored Lease becomes a fresh observation. */
function write(
  context: AttemptContext,
  request: Observable<LeaseObject>,
  record: LeaderRecord,
): Observable<{
  readonly kind: 'success';
  readonly sentAt: number;
  readonly leaseTransitions: number;
}> {
  const { observation, scheduler, writes } = context;
  return defer(() => {
    const sentAt = scheduler.now();
    writes.sent(record);
    return request.pipe(
      map((stored) => {
        writes.stored(stored);
        observation.wrote(stored, scheduler.now());
        return { kind: 'success', sentAt, leaseTransitions: record.leaseTransitions } as const;
      }),
      catchError((error: unknown) => {
        // Only a refusal is an answer; a cut connection or a server error may hide a write that landed.
        if (error instanceof ApiError && error.code >= 400 && error.code < 500) writes.refused();
        throw error;
      }),
    );
  });
}

function failure(error: unknown): AttemptResult {
  const asError = error instanceof Error ? error : new Error(String(error));
  return isConflict(asError) || isAlreadyExists(asError)
    ? { kind: 'conflict', error: asError }
    : { kind: 'failed', error: asError };
}
