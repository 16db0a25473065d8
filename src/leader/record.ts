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
 * (`2006-01-02T15:04:05.000000Z`). JavaScript clocks count milliseconds, so the last three digits are zero.
 */
export function microTime(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  return `${iso.slice(0, -1)}000Z`;
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
 * What client-go compares to decide whether the record changed (its marshalled record): every election field,
 * `preferredHolder` and `strategy` included, and nothing from the metadata, so a label change does not count as a
 * renewal.
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
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: writtenFields(record) };
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

  private observe(lease: LeaseObject, key: string, now: number): void {
    this.record = readRecord(lease);
    this.key = key;
    this.time = now;
  }
}
