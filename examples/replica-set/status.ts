/**
 * The PodSet's status, computed as kube-controller-manager's `calculateStatus` computes a ReplicaSet's
 * (`pkg/controller/replicaset/replica_set_utils.go`).
 * @module
 */
import type { V1Pod } from '@kubernetes/client-node';
import { isPodReady } from './pods.js';
import type { PodSetCondition, PodSetStatus } from './podset.js';

/** The condition a PodSet carries while it cannot create or delete its Pods, as a ReplicaSet's. */
export const REPLICA_FAILURE = 'ReplicaFailure';

/** Why a PodSet has {@link REPLICA_FAILURE}. */
export type ReplicaFailureReason = 'FailedCreate' | 'FailedDelete' | 'InvalidSpec';

/** A failure of the last sync, to be reported in status. */
export interface SyncFailure {
  readonly reason: ReplicaFailureReason;
  readonly message: string;
}

/**
 * How managing the Pods went in this sync: `'ok'` (nothing to do, or done), a failure, or `'skipped'` (the sync did
 * not try: its expectations held it back, or the PodSet is being deleted).
 */
export type ManageOutcome = 'ok' | 'skipped' | SyncFailure;

/** What {@link calculateStatus} computes from. */
export interface StatusInputs {
  /** The status the PodSet has now (its conditions are carried over). */
  readonly current: PodSetStatus | undefined;
  /** The `metadata.generation` the sync acted on: what `observedGeneration` claims. */
  readonly generation: number | undefined;
  readonly activePods: readonly V1Pod[];
  readonly outcome: ManageOutcome;
  /** `spec.selector` as text; `undefined` for a selector that cannot be read. */
  readonly selector: string | undefined;
  /** The clock, ms: a new condition's `lastTransitionTime`. */
  readonly now: number;
}

/**
 * The status a PodSet should have, given its active Pods and how managing them went.
 *
 * # Guarantees
 * - `replicas` counts `activePods`; `readyReplicas` those whose `Ready` condition is True; `observedGeneration` is
 *   `generation` (the one acted on, even when the PodSet has moved on since: kube-controller-manager's "save the
 *   generation number we acted on"); `selector` is `selector`.
 * - {@link REPLICA_FAILURE} is added (True, with the failure's reason and message, `lastTransitionTime` = `now`)
 *   when the sync failed and `current` does not have it; an existing one is kept unchanged while failures of the
 *   same reason go on (`SetCondition`: same status and reason, no rewrite); it is removed after a sync that managed
 *   its Pods without failure, and left as it is by one that did not try (`'skipped'`: kube-controller-manager
 *   removes it then too, so it flaps while a failing PodSet waits for its expectations). Other conditions are
 *   kept.
 * - A function of its inputs only, so a status that has not changed compares equal and is not written.
 */
export function calculateStatus(inputs: StatusInputs): PodSetStatus {
  const { current = {}, outcome } = inputs;
  const others = (current.conditions ?? []).filter((condition) => condition.type !== REPLICA_FAILURE);
  const existing = current.conditions?.find((condition) => condition.type === REPLICA_FAILURE);
  let failureCondition: PodSetCondition | undefined;
  if (outcome === 'skipped') failureCondition = existing;
  else if (outcome !== 'ok') {
    failureCondition =
      existing?.status === 'True' && existing.reason === outcome.reason
        ? existing
        : {
            type: REPLICA_FAILURE,
            status: 'True',
            reason: outcome.reason,
            message: outcome.message,
            lastTransitionTime: rfc3339(inputs.now),
          };
  }
  const conditions = failureCondition === undefined ? others : [...others, failureCondition];
  return {
    replicas: inputs.activePods.length,
    readyReplicas: inputs.activePods.filter(isPodReady).length,
    observedGeneration: inputs.generation ?? 0,
    ...(inputs.selector === undefined ? {} : { selector: inputs.selector }),
    ...(conditions.length > 0 ? { conditions } : {}),
  };
}

/** `metav1.Time` as the API writes it: RFC 3339 to the second. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
