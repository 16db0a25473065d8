/**
 * The named priorities of a reconcile trigger, controller-runtime's: `priorities.low` (-100, `handler.LowPriority`:
 * what the trigger operators give a list's and a resync's events), `priorities.normal` (0, a trigger without a
 * priority) and `priorities.high` (100). Any safe integer is a priority; higher starts first, with aging bounding
 * every wait (see `reconcile`).
 *
 * @example
 * ```ts
 * import { priorities, reconcile } from 'rxkube';
 *
 * urgent$.pipe(map((key) => ({ key, priority: priorities.high })), reconcile(fn));
 * ```
 * @packageDocumentation
 */
export { HIGH_PRIORITY as high, LOW_PRIORITY as low, NORMAL_PRIORITY as normal } from './types.js';
