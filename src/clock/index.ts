/**
 * Clocks: the monotonic default scheduler for durations, and the wall clock for timestamps.
 * @packageDocumentation
 */
export { monotonicScheduler, wallClockNow } from './monotonic.js';
export type { WallClockScheduler } from './monotonic.js';
