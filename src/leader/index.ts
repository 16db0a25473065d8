/**
 * Lease-based leader election as an `Observable<boolean>`, compatible with client-go's `LeaseLock`.
 * @packageDocumentation
 */
export { leaderElection, observedElection } from './leader-election.js';
export { Observation } from './record.js';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LEADER_JITTER_FACTOR,
} from './options.js';
export { microTime } from './record.js';
export type { LeaderElectionOptions, LeaderEvent, LeaderPhase, LeaseObject, LeaseSpec } from './types.js';
