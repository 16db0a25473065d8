/**
 * Lease-based leader election as an `Observable<boolean>`, compatible with client-go's `LeaseLock`.
 * @packageDocumentation
 */
export { leaderElection } from './leaderElection.js';
export {
  DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS, LEADER_JITTER_FACTOR,
} from './options.js';
export { microTime, readRecord } from './record.js';
export type { LeaderRecord } from './record.js';
export type { LeaseClient } from './lease-client.js';
export { transportLeaseClient } from './transport-lease-client.js';
export type { LeaderElectionOptions, LeaderEvent, LeaderPhase, LeaseObject, LeaseSpec } from './types.js';
