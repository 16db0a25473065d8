/**
 * Reading what a reconcile function returned: whether it is a Promise, and the requeue it asks for.
 * Internal to the operator.
 */
import { InvalidReconcileResultError } from './types.js';

/** Whether `value` looks like a Promise. May throw if a `then` getter throws; callers guard it. Internal. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A requeue a result asked for: after `after` ms, at `priority` (undefined: the run's own). */
export interface Requeue {
  readonly after: number;
  readonly priority: number | undefined;
}

/**
 * `undefined` for success, the requeue for a requeue, an error for a broken requeue. Only an object with a
 * `requeueAfter` property asks for a requeue; every other value (a patched object, a string, `null`) is success.
 * Each property is read once, so a getter cannot answer one thing to the check and another to the use.
 */
export function parseResult(key: string, value: unknown): Requeue | undefined | InvalidReconcileResultError {
  if (value === undefined || value === null || typeof value !== 'object') return undefined;
  let ms: unknown;
  let priority: unknown;
  try {
    if (!('requeueAfter' in value)) return undefined;
    ms = (value as { requeueAfter: unknown }).requeueAfter;
    priority = (value as { priority?: unknown }).priority;
  } catch (error) {
    // A Proxy or getter may throw; that is the user's failure, reported like any other invalid result.
    return new InvalidReconcileResultError(key, error);
  }
  if (!(typeof ms === 'number' && Number.isFinite(ms) && ms >= 0)) return new InvalidReconcileResultError(key, value);
  if (priority !== undefined && !isPriority(priority)) {
    return new InvalidReconcileResultError(key, value, 'priority must be a safe integer');
  }
  return { after: ms, priority };
}

/** Whether `value` is a valid priority: a safe integer. */
export function isPriority(value: unknown): value is number {
  return Number.isSafeInteger(value);
}
