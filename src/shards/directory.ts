/**
 * What a replica knows of its controller's Leases: every range Lease and member Lease, read by listing the Leases of
 * the namespace, each judged by local observation exactly as leader election judges a Lease.
 */
import type { SchedulerLike } from 'rxjs';
import type { ResourceClient } from '../client/index.js';
import { Observation, type LeaseObject } from '../leader/index.js';
import { memberLeasePrefix, rangeOfLease } from './names.js';

/** How a replica sees one range's Lease. */
export type RangeView =
  /** No Lease, an empty holder, or a lease expired by local observation: anyone may take it. */
  | 'free'
  /** Held by a replica whose member Lease is not live: it will expire, and the one who watches takes it then. */
  | 'orphaned'
  /** Held by a live replica (perhaps this one). */
  | 'held';

/**
 * The Leases of one sharded controller, from the latest list, with one {@link Observation} per Lease. A range
 * Lease's elector starts each term from a copy of its observation, so a range this replica watched expire can be
 * taken at once.
 *
 * # Guarantees
 * - Liveness and expiry are judged by the local time a record was first seen plus its `leaseDurationSeconds`,
 *   never by the holder's times: clock skew and clock steps between replicas do not matter.
 * - A member Lease missing from a list is forgotten.
 */
export class LeaseDirectory {
  private readonly observations = new Map<string, Observation>();
  private members: readonly string[] = [];

  constructor(
    private readonly name: string,
    private readonly rangeCount: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** The observation of the Lease `lease` (created empty if none yet); an elector's term starts from a copy. */
  observation(lease: string): Observation {
    let observation = this.observations.get(lease);
    if (observation === undefined) {
      observation = new Observation();
      this.observations.set(lease, observation);
    }
    return observation;
  }

  /** A list of the namespace's Leases arrived. */
  update(list: ResourceClient.ObjectList<LeaseObject>): void {
    const now = this.scheduler.now();
    const seen = new Set<string>();
    const prefix = memberLeasePrefix(this.name);
    for (const lease of list.items) {
      const leaseName = lease.metadata?.name;
      if (typeof leaseName !== 'string') continue;
      if (!leaseName.startsWith(prefix) && rangeOfLease(this.name, leaseName, this.rangeCount) === undefined) continue;
      seen.add(leaseName);
      this.observation(leaseName).read(lease, now);
    }
    for (const leaseName of [...this.observations.keys()]) {
      if (!seen.has(leaseName) && leaseName.startsWith(prefix)) this.observations.delete(leaseName);
    }
    this.members = [...this.observations.entries()]
      .filter(([leaseName, observation]) => leaseName.startsWith(prefix) && this.live(observation, now))
      .map(([, observation]) => observation.holder())
      .sort();
  }

  /** The identities of the replicas whose member Lease is live, sorted. */
  liveMembers(): readonly string[] {
    return this.members;
  }

  /** How this replica sees the Lease `lease` of a range now. */
  range(lease: string): RangeView {
    const observation = this.observations.get(lease);
    if (observation === undefined || !this.live(observation, this.scheduler.now())) return 'free';
    return this.members.includes(observation.holder()) ? 'held' : 'orphaned';
  }

  /** The holder of range Lease `lease` as last observed (`''`: none). */
  holder(lease: string): string {
    return this.observations.get(lease)?.holder() ?? '';
  }

  private live(observation: Observation, now: number): boolean {
    return observation.holder() !== '' && observation.isValid(now);
  }
}
