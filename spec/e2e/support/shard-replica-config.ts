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
  /**
   * `record` (the spec): each run writes its replica, start and end into its ConfigMap and logs `run-start` and
   * `run-end`. `throughput` (the benchmark): each run only works, then asks to run again at once, and the replica
   * logs how many runs ended, once a second (`count`).
   */
  readonly mode?: 'record' | 'throughput';
  /** Runs at once per replica. Default 4. */
  readonly concurrency?: number;
}

/** The annotation each reconcile writes: `<replica> <start ms> <end ms>`. */
export const LAST_RUN = 'e2e.rxkube.dev/last-run';
