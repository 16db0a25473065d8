/**
 * The names of a sharded controller's Leases: one per hash range and one per replica.
 */
import { fnv1a64 } from '../sharding/index.js';

/** The Lease that fences hash range `range` of the controller `name`: `<name>-shard-<range>`. */
export function rangeLeaseName(name: string, range: number): string {
  return `${name}-shard-${range}`;
}

/** The prefix of the member Leases of `name`: `<name>-member-`. */
export function memberLeasePrefix(name: string): string {
  return `${name}-member-`;
}

/**
 * The member Lease of replica `identity`: `<name>-member-<fnv1a64(identity)>` (an identity such as
 * `<hostname>_<uuid>` is no valid Lease name; its hash is, and the Lease's `holderIdentity` keeps the identity).
 */
export function memberLeaseName(name: string, identity: string): string {
  return `${memberLeasePrefix(name)}${fnv1a64(identity)}`;
}

/** The range of a Lease named `lease` of `name`, or `undefined` when it is not one of its range Leases. */
export function rangeOfLease(name: string, lease: string, rangeCount: number): number | undefined {
  const prefix = `${name}-shard-`;
  if (!lease.startsWith(prefix)) return undefined;
  const text = lease.slice(prefix.length);
  if (!/^(0|[1-9][0-9]*)$/.test(text)) return undefined;
  const range = Number(text);
  return range < rangeCount ? range : undefined;
}
