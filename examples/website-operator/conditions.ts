/**
 * A Website's conditions (`Ready`, `Progressing`, `Degraded`), kept by rxkube's `setStatusCondition`, as
 * apimachinery's `meta.SetStatusCondition` keeps `metav1.Condition`s: the transition time moves only when the status
 * flips.
 * @module
 */
import { conditions } from '../../src/index.js';
import type { Rollout } from './rollout.js';
import type { Condition, WebsiteConditionType } from './website.js';

/** The order conditions are listed in; other types (written by someone else) follow, as found. */
export const CONDITION_TYPES: readonly WebsiteConditionType[] = ['Ready', 'Progressing', 'Degraded'];

/** A condition as a reconcile decides it; the time and the generation are filled in by {@link setConditions}. */
export interface ConditionUpdate {
  readonly type: WebsiteConditionType;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

/**
 * The conditions after `updates`, each set with `setStatusCondition` and stamped with `observedGeneration`, `now`
 * (scheduler ms) being the time of those that flip; `previous` is not modified. The last update of a type wins.
 *
 * # Guarantees
 * - As `setStatusCondition`: `lastTransitionTime` moves only when the status differs from `previous`; reason,
 *   message and generation are taken; messages are cut to the API's 32768 characters; other types are kept.
 * - The result is listed in {@link CONDITION_TYPES} order, then the other types in their previous order, so equal
 *   inputs give equal output and an unchanged status is recognised as such.
 */
export function setConditions(
  previous: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  observedGeneration: number,
  now: number,
): Condition[] {
  const status: conditions.ConditionHolder = { conditions: (previous ?? []).map((condition) => ({ ...condition })) };
  const lastOfType = new Map(updates.map((update) => [update.type, update]));
  for (const update of lastOfType.values())
    conditions.set(status, { ...update, observedGeneration }, { scheduler: { now: () => now } });
  const rank = (type: string): number => {
    const index = (CONDITION_TYPES as readonly string[]).indexOf(type);
    return index === -1 ? CONDITION_TYPES.length : index;
  };
  return status.conditions!.sort((a, b) => rank(a.type) - rank(b.type));
}

/** The three conditions of a Website whose objects were applied, from its Deployment's rollout. */
export function rolloutConditions(rollout: Rollout): ConditionUpdate[] {
  const ready = `${rollout.readyReplicas}/${rollout.replicas} replicas ready`;
  switch (rollout.state) {
    case 'complete':
      return [
        { type: 'Ready', status: 'True', reason: 'Available', message: `${ready}; ${rollout.message}` },
        { type: 'Progressing', status: 'False', reason: 'RolloutComplete', message: rollout.message },
        { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'every object is applied' },
      ];
    case 'progressing':
      return [
        { type: 'Ready', status: 'False', reason: 'RollingOut', message: `${ready}; ${rollout.message}` },
        { type: 'Progressing', status: 'True', reason: 'RollingOut', message: rollout.message },
        { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'every object is applied' },
      ];
    case 'failed':
      return [
        { type: 'Ready', status: 'False', reason: 'ProgressDeadlineExceeded', message: `${ready}; ${rollout.message}` },
        { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: rollout.message },
        { type: 'Degraded', status: 'True', reason: 'ProgressDeadlineExceeded', message: rollout.message },
      ];
  }
}

/**
 * A Website that cannot be brought in line: `Degraded` only. `Ready` and `Progressing` keep what they said, and
 * their `observedGeneration` says which generation that was.
 */
export function degradedCondition(reason: string, message: string): ConditionUpdate {
  return { type: 'Degraded', status: 'True', reason, message };
}

/** A condition that changed between two lists: it is new, or its status or reason differs. */
export interface ConditionChange {
  readonly before: Condition | undefined;
  readonly after: Condition;
}

/** The conditions of `after` that are new in it or differ from `before` in status or reason, in `after`'s order. */
export function changedConditions(
  before: readonly Condition[] | undefined,
  after: readonly Condition[],
): ConditionChange[] {
  const old = new Map((before ?? []).map((condition) => [condition.type, condition]));
  return after.flatMap((condition) => {
    const previous = old.get(condition.type);
    return previous !== undefined && previous.status === condition.status && previous.reason === condition.reason
      ? []
      : [{ before: previous, after: condition }];
  });
}
