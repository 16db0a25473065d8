/**
 * Status conditions (`metav1.Condition`) kept as apimachinery's `meta` package keeps them: `SetStatusCondition`,
 * `FindStatusCondition`, `RemoveStatusCondition`, `IsStatusConditionTrue` and their kin, in place, so they work on
 * a plain object and on an Immer draft alike.
 */
import type { SchedulerLike } from 'rxjs';
import { monotonicScheduler, wallClockNow } from '../../clock/index.js';
import { qualifiedNameProblem } from '../events/index.js';

/** A condition's status. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A `metav1.Condition` as the API serves it (its time an RFC 3339 string). */
export interface Condition {
  /** What the condition is about, in CamelCase (`Ready`, `Progressing`), or a qualified name (`example.com/Audited`). */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: ConditionStatus;
  /** Why, machine-readable: UpperCamelCase (`MinimumReplicasAvailable`). */
  reason: string;
  /** Why, for humans; may be empty. */
  message: string;
  /** When `status` last changed: `metav1.Time`, RFC 3339 in UTC, whole seconds (`2026-01-01T00:00:00Z`). */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/** The condition to set: a `Condition` whose `message` and `lastTransitionTime` may be left out. */
export interface ConditionUpdate {
  /** The condition's type (see `Condition.type`). */
  readonly type: string;
  /** Its new status. */
  readonly status: ConditionStatus;
  /** Its reason: UpperCamelCase letters, digits, `_`, `,` and `:`, at most 1024 characters. */
  readonly reason: string;
  /** Its message; default `''`. Cut to the API's 32768 characters. */
  readonly message?: string;
  /** The generation the condition was computed from (usually the object's `metadata.generation`); left out: none. */
  readonly observedGeneration?: number;
  /** Used as the transition time when the status changes; left out: the scheduler's wall clock. */
  readonly lastTransitionTime?: string;
}

/** Something that holds conditions: a `status`, or an Immer draft of one. */
export interface ConditionHolder {
  /** The conditions, created by `conditions.set` when absent. */
  conditions?: Condition[];
}

/** Options of `conditions.set` (`setStatusCondition`). */
export type SetStatusConditionOptions = NonNullable<Parameters<typeof setStatusCondition>[2]>;

/** The API's limit on a condition's message (`maxLength` of `metav1.Condition.message`). */
export const CONDITION_MESSAGE_LIMIT = 32768;
const REASON_LIMIT = 1024;
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

/** `metav1.Time` of a wall-clock time, ms since the epoch: RFC 3339 in UTC, whole seconds, as the API serializes it. */
export function conditionTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Sets the condition of `update.type` in `holder.conditions`, in place, as apimachinery's `meta.SetStatusCondition`;
 * true when anything changed.
 *
 * # Guarantees
 * - A new type is appended, with `lastTransitionTime` from the update or the scheduler's wall clock
 *   (`wallClockNow`, never its monotonic `now()`); `holder.conditions` is created when absent.
 * - An existing condition keeps its place. **`lastTransitionTime` moves only when `status` changes** (to the
 *   update's, or now); a new reason, message or generation with the same status is no transition. `reason`,
 *   `message` and `observedGeneration` take the update's values (an update without `observedGeneration` removes
 *   it, as apimachinery's zero value does).
 * - Only what differs is assigned, so on an Immer draft an update that changes nothing leaves the draft unchanged
 *   (and `mutate` sends nothing), and one that changes a field sends only that field.
 * - Bad input is a `TypeError`/`RangeError` naming the field, before anything changes: a `type` that is not a
 *   qualified name, a `status` other than True/False/Unknown, a `reason` the API refuses, a negative or fractional
 *   `observedGeneration`.
 *
 * # Caveats
 * - A message over the API's 32768 characters is cut to it, rather than have the status write refused.
 * - A condition that appears twice keeps its first copy set and the second untouched, as apimachinery's.
 *
 * @example
 * ```ts
 * client.mutate(website, (draft) => {
 *   setStatusCondition(draft.status ??= {}, {
 *     type: 'Ready', status: 'True', reason: 'Available', observedGeneration: draft.metadata!.generation,
 *   }, { scheduler });
 * });
 * ```
 */
export function setStatusCondition(
  holder: ConditionHolder,
  update: ConditionUpdate,
  options: {
    /**
     * The clock of new transition times, read with `wallClockNow` (its `wallClock()` if it has one, else its
     * `now()`): pass the controller's `context.scheduler`. Default `monotonicScheduler`: `Date.now()`, virtual inside
     * `TestScheduler.run()`.
     */
    readonly scheduler?: Pick<SchedulerLike, 'now'>;
  } = {},
): boolean {
  checkUpdate(update);
  const message = update.message === undefined ? '' : update.message.slice(0, CONDITION_MESSAGE_LIMIT);
  const now = (): string =>
    update.lastTransitionTime ?? conditionTime(wallClockNow(options.scheduler ?? monotonicScheduler));
  const conditions = (holder.conditions ??= []);
  const existing = findStatusCondition(conditions, update.type);
  if (existing === undefined) {
    conditions.push({
      type: update.type,
      status: update.status,
      reason: update.reason,
      message,
      lastTransitionTime: now(),
      ...(update.observedGeneration !== undefined ? { observedGeneration: update.observedGeneration } : {}),
    });
    return true;
  }
  let changed = false;
  if (existing.status !== update.status) {
    existing.status = update.status;
    existing.lastTransitionTime = now();
    changed = true;
  }
  if (existing.reason !== update.reason) {
    existing.reason = update.reason;
    changed = true;
  }
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (existing.observedGeneration !== update.observedGeneration) {
    if (update.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = update.observedGeneration;
    changed = true;
  }
  return changed;
}

/**
 * Removes the condition of `type` from `holder.conditions`, in place; true when there was one
 * (`meta.RemoveStatusCondition`). The others keep their order.
 */
export function removeStatusCondition(holder: ConditionHolder, type: string): boolean {
  const conditions = holder.conditions;
  const index = conditions?.findIndex((condition) => condition.type === type) ?? -1;
  if (index === -1) return false;
  conditions!.splice(index, 1);
  return true;
}

/** The condition of `type`, or `undefined` (`meta.FindStatusCondition`); the array may be absent. */
export function findStatusCondition<C extends Pick<Condition, 'type'>>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/** Whether the condition of `type` is present and `True` (`meta.IsStatusConditionTrue`). */
export function isStatusConditionTrue(
  conditions: readonly Pick<Condition, 'type' | 'status'>[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** Whether the condition of `type` is present and `False` (`meta.IsStatusConditionFalse`). */
export function isStatusConditionFalse(
  conditions: readonly Pick<Condition, 'type' | 'status'>[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}

/** Whether the condition of `type` is present with `status` (`meta.IsStatusConditionPresentAndEqual`). */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Pick<Condition, 'type' | 'status'>[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

function checkUpdate(update: ConditionUpdate): void {
  if (update === null || typeof update !== 'object')
    throw new TypeError('setStatusCondition: the condition must be an object');
  const { type, status, reason, message, observedGeneration, lastTransitionTime } = update;
  if (typeof type !== 'string') throw new TypeError('setStatusCondition: type must be a string');
  const problem = qualifiedNameProblem(type);
  if (problem !== undefined) throw new RangeError(`setStatusCondition: type ${JSON.stringify(type)} ${problem}`);
  if (!STATUSES.includes(status))
    throw new RangeError(`setStatusCondition: status must be True, False or Unknown, got ${JSON.stringify(status)}`);
  if (typeof reason !== 'string' || reason.length > REASON_LIMIT || !REASON.test(reason)) {
    throw new RangeError(
      `setStatusCondition: reason ${JSON.stringify(reason)} must be 1 to ${REASON_LIMIT} characters of [A-Za-z0-9_,:], starting with a letter and not ending with , or :`,
    );
  }
  if (message !== undefined && typeof message !== 'string')
    throw new TypeError('setStatusCondition: message must be a string');
  if (observedGeneration !== undefined && (!Number.isInteger(observedGeneration) || observedGeneration < 0)) {
    throw new RangeError(
      `setStatusCondition: observedGeneration must be a whole number >= 0, got ${String(observedGeneration)}`,
    );
  }
  if (
    lastTransitionTime !== undefined &&
    (typeof lastTransitionTime !== 'string' || Number.isNaN(Date.parse(lastTransitionTime)))
  ) {
    throw new RangeError(
      `setStatusCondition: lastTransitionTime must be an RFC 3339 time, got ${JSON.stringify(lastTransitionTime)}`,
    );
  }
}
