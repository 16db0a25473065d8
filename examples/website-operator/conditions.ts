/**
 * A Website's conditions (`Ready`, `Progressing`, `Degraded`), kept as `metav1.Condition`s are kept by
 * apimachinery's `meta.SetStatusCondition`: the transition time moves only when the status flips.
 * @module
 */
import type { Rollout } from './rollout.js';
import type { Condition, WebsiteConditionType } from './website.js';

/** The order conditions are listed in; other types (written by someone else) follow, as found. */
export const CONDITION_TYPES: readonly WebsiteConditionType[] = ['Ready', 'Progressing', 'Degraded'];

/** The API's limit on a condition's message. */
const MESSAGE_LIMIT = 32768;

/** A condition as a reconcile decides it; the time and the generation are filled in by {@link setConditions}. */
export interface ConditionUpdate {
  readonly type: WebsiteConditionType;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

/** `metav1.Time` of `ms`: RFC 3339 in UTC, whole seconds. */
export function metav1Time(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The conditions after `updates`: each update replaces the condition of its type (the last one wins when a type
 * comes twice), stamped with `observedGeneration`; conditions no update names are kept as they were.
 *
 * # Guarantees
 * - `lastTransitionTime` is `now` for a new condition or one whose status differs from `previous`, and is kept
 *   otherwise (a new reason, message or generation with the same status is no transition).
 * - The result is listed in {@link CONDITION_TYPES} order, then the other types in their previous order, so equal
 *   inputs give equal output and an unchanged status is recognised as such.
 * - Messages are cut to the API's 32768-character limit.
 */
export function setConditions(
  previous: readonly Condition[] | undefined, updates: readonly ConditionUpdate[], observedGeneration: number, now: string,
): Condition[] {
  const old = new Map((previous ?? []).map((condition) => [condition.type, condition]));
  const byType = new Map(old);
  for (const update of updates) {
    const before = old.get(update.type);
    byType.set(update.type, {
      type: update.type,
      status: update.status,
      reason: update.reason,
      message: update.message.length > MESSAGE_LIMIT ? update.message.slice(0, MESSAGE_LIMIT) : update.message,
      lastTransitionTime: before !== undefined && before.status === update.status ? before.lastTransitionTime : now,
      observedGeneration,
    });
  }
  const rank = (type: string): number => {
    const index = (CONDITION_TYPES as readonly string[]).indexOf(type);
    return index === -1 ? CONDITION_TYPES.length : index;
  };
  return [...byType.values()].sort((a, b) => rank(a.type) - rank(b.type));
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
export function changedConditions(before: readonly Condition[] | undefined, after: readonly Condition[]): ConditionChange[] {
  const old = new Map((before ?? []).map((condition) => [condition.type, condition]));
  return after.flatMap((condition) => {
    const previous = old.get(condition.type);
    return previous !== undefined && previous.status === condition.status && previous.reason === condition.reason ? [] : [{ before: previous, after: condition }];
  });
}
