/** What `shard-replica.ts` is given and what it writes, shared with the spec (which must not run the program). */

/** What the spec passes as the one argument. */
export interface ShardReplicaConfig {
  readonly kubeconfig: string;
  readonly namespace: string;
  /** The sharded controller's name: the Leases are `<name>-shard-<i>` and `<name>-member-…`. */
  readonly name: string;
  readonly identity: string;
  readonly ranges: number;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
  /** How long each reconcile works before it writes, ms. */
  readonly workMs: number;
}

/** The annotation each reconcile writes: `<replica> <start ms> <end ms>`. */
export const LAST_RUN = 'e2e.rxkube.dev/last-run';
