/**
 * The election record inside a Lease, read and written field for field as client-go's `LeaseLock` does, and the
 * local observation of it that expiry is judged by.
 */
import type { LeaseObject, LeaseSpec } from './types.js';

/** client-go's `LeaderElectionRecord`, the fields an elector reads from a `LeaseSpec` (absent means zero). */
export interface LeaderRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: string | undefined;
  readonly renewTime: string | undefined;
  readonly leaseTransitions: number;
}

/**
 * `metav1.MicroTime` as it is marshalled: RFC 3339 in UTC with exactly six fractional digits
 * (`2006-01-02T15:04:05.000000Z`). JavaScript clocks count milliseconds, so the last three digits are
 * `extraMicros` (0–999), zero unless a caller needs to tell two stamps of one millisecond apart.
 */
export function microTime(ms: number, extraMicros = 0): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  return `${iso.slice(0, -1)}${String(extraMicros).padStart(3, '0')}Z`;
}

/**
 * The wall-clock stamps (`acquireTime`, `renewTime`) of one election's writes. A stamp is the wall clock's
 * millisecond; when the clock went back to, or stayed on, a millisecond already stamped, it also carries a count of
 * 1–999 microseconds, so that no write repeats the stamp of an earlier one.
 *
 * # Why
 * A candidate sees a renewal only as a change of the record, and the record of a renewal differs from the last
 * one only by `renewTime`. A holder whose wall clock was stepped back by exactly the time between two of its
 * renewals would otherwise write a record a candidate has already seen, and that candidate would time the lease
 * from its older observation while the holder still renews.
 *
 * # Guarantees
 * - Every stamp is within a millisecond of the wall clock it was given.
 * - Stamps on a clock that only moves forward are whole milliseconds; a stamp never equals one of the previous 999
 *   stamps that were not.
 */
export class WallStamps {
  private latest = Number.NEGATIVE_INFINITY;
  private repeats = 0;

  /** The stamp of a write made at wall-clock time `wallMs`. */
  next(wallMs: number): string {
    const ms = Math.floor(wallMs);
    if (ms > this.latest) {
      this.latest = ms;
      return microTime(ms);
    }
    this.repeats += 1;
    return microTime(ms, 1 + ((this.repeats - 1) % 999));
  }
}

/** The record of a Lease, as `LeaseSpecToLeaderElectionRecord` reads it: a missing or null field is its zero value. */
export function readRecord(lease: LeaseObject): LeaderRecord {
  const spec: LeaseSpec = lease.spec ?? {};
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
    acquireTime: typeof spec.acquireTime === 'string' ? spec.acquireTime : undefined,
    renewTime: typeof spec.renewTime === 'string' ? spec.renewTime : undefined,
    leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
  };
}

/**
 * What decides whether the record changed (a change is a renewal, and restarts the expiry clock): every election
 * field, `preferredHolder` and `strategy` included, and nothing from the metadata, so a label change does not count
 * as a renewal. client-go compares the same fields in its marshalled `LeaderElectionRecord`, where `acquireTime` and
 * `renewTime` are `metav1.Time`, rounded to the second; this compares them as written, to the microsecond. That is
 * stricter: every renewal client-go sees as a change, this sees as one too, and a renewal within the same second
 * (which client-go misses) is seen as well, so a lease never looks older here than it does to client-go.
 */
function recordKey(lease: LeaseObject): string {
  const spec = lease.spec ?? {};
  return JSON.stringify([readRecord(lease), spec.preferredHolder ?? '', spec.strategy ?? '']);
}

/**
 * `lease` with the election fields set to `record`, as `LeaderElectionRecordToLeaseSpec` sets them (all five, always,
 * `holderIdentity` as a string even when empty). Metadata (the resourceVersion precondition, labels) and every other
 * spec field (`preferredHolder`, `strategy`) are kept as they are.
 */
export function withRecord(lease: LeaseObject, record: LeaderRecord): LeaseObject {
  return { ...lease, spec: { ...lease.spec, ...writtenFields(record) } };
}

/** A new Lease `namespace/name` holding `record`. */
export function newLease(namespace: string, name: string, record: LeaderRecord): LeaseObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace },
    spec: writtenFields(record),
  };
}

function writtenFields(record: LeaderRecord): LeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: record.acquireTime ?? null,
    renewTime: record.renewTime ?? null,
    leaseTransitions: record.leaseTransitions,
  };
}

/**
 * The latest record this candidate has seen, and the local time at which it first saw it. Expiry is judged from
 * that time plus the record's own `leaseDurationSeconds`, never from the holder's `renewTime`: the holder's clock is
 * not trusted, only the fact that the record changed.
 */
export class Observation {
  /** The latest Lease read or written: the base (and resourceVersion) of the next write. */
  lease: LeaseObject | undefined;
  private record: LeaderRecord | undefined;
  private key: string | undefined;
  private time = Number.NEGATIVE_INFINITY;

  /** A Lease read from the server: the observation time moves only if the record differs from the one seen last. */
  read(lease: LeaseObject, now: number): void {
    this.lease = lease;
    const key = recordKey(lease);
    if (key === this.key) return;
    this.observe(lease, key, now);
  }

  /** A Lease this candidate wrote: always a fresh observation. */
  wrote(lease: LeaseObject, now: number): void {
    this.lease = lease;
    this.observe(lease, recordKey(lease), now);
  }

  /** The observed holder; `''` when none (released, or nothing observed yet). */
  holder(): string {
    return this.record?.holderIdentity ?? '';
  }

  /** The observed record, if any. */
  current(): LeaderRecord | undefined {
    return this.record;
  }

  /** client-go's `isLeaseValid`: observed time + the record's lease duration is still ahead of `now`. */
  isValid(now: number): boolean {
    return this.expiresAt() > now;
  }

  /** The local time at which the observed lease expires, unless it changes before; `-Infinity` if none observed. */
  expiresAt(): number {
    return this.record === undefined ? Number.NEGATIVE_INFINITY : this.time + this.record.leaseDurationSeconds * 1000;
  }

  /** A copy, to go on from what this one saw without changing it. */
  copy(): Observation {
    const copy = new Observation();
    copy.lease = this.lease;
    copy.record = this.record;
    copy.key = this.key;
    copy.time = this.time;
    return copy;
  }

  private observe(lease: LeaseObject, key: string, now: number): void {
    this.record = readRecord(lease);
    this.key = key;
    this.time = now;
  }
}

/**
 * What one term of an elector wrote: the resourceVersion of the Lease it last stored, and the record of a write it
 * sent that got no answer (which may have landed). A release clears the Lease only if it is one of these, so a term
 * never releases a Lease that someone wrote after it, even under the same identity (a later term of the same
 * process, or another process given the same identity).
 */
export class TermWrites {
  private storedVersion: string | undefined;
  private unanswered: LeaderRecord | undefined;

  /** A write of `record` was sent. */
  sent(record: LeaderRecord): void {
    this.unanswered = record;
  }

  /** The server stored `lease`, as it answered. */
  stored(lease: LeaseObject): void {
    this.storedVersion = lease.metadata.resourceVersion;
    this.unanswered = undefined;
  }

  /** The server refused the write (a 4xx): it did not land. */
  refused(): void {
    this.unanswered = undefined;
  }

  /** A write was sent and not answered (cut off, or still in flight): it may have landed. */
  inDoubt(): boolean {
    return this.unanswered !== undefined;
  }

  /** Whether `lease` is the last Lease this term stored, or the one its unanswered write would have stored. */
  wrote(lease: LeaseObject): boolean {
    const version = lease.metadata.resourceVersion;
    if (version !== undefined && version === this.storedVersion) return true;
    return this.unanswered !== undefined && sameRecord(readRecord(lease), this.unanswered);
  }
}

function sameRecord(a: LeaderRecord, b: LeaderRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  );
}
