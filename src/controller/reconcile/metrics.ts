/**
 * The reconcile operator's metrics hook at work: combining hooks, the live view of a queue, and checking a hook.
 */
import type { SchedulerLike } from 'rxjs';
import { messageOf } from '../../error-messages/index.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileMetrics, ReconcileQueueView } from './metrics-hook.js';

/** Both hooks, each called in turn (`a` first); either alone if the other is absent. Internal. */
export function bothMetrics(
  a: ReconcileMetrics | undefined,
  b: ReconcileMetrics | undefined,
): ReconcileMetrics | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return {
    opened(queue) {
      a.opened?.(queue);
      b.opened?.(queue);
    },
    closed(queue) {
      a.closed?.(queue);
      b.closed?.(queue);
    },
    added(key, priority) {
      a.added?.(key, priority);
      b.added?.(key, priority);
    },
    started(key, queueWaitMs, priority) {
      a.started?.(key, queueWaitMs, priority);
      b.started?.(key, queueWaitMs, priority);
    },
    staleRead(key, staleRead) {
      a.staleRead?.(key, staleRead);
      b.staleRead?.(key, staleRead);
    },
    done(key, durationMs) {
      a.done?.(key, durationMs);
      b.done?.(key, durationMs);
    },
    outcome(run, next) {
      a.outcome?.(run, next);
      b.outcome?.(run, next);
    },
  };
}

/**
 * The view of one subscription's queue: `depth`, `depthByPriority` and `active` read live, `runs` are the sets of runs in flight (held
 * Promises included), measured on `scheduler`. Internal; the runner builds one only for a hook.
 */
export function queueView(
  concurrency: number,
  scheduler: SchedulerLike,
  depth: () => number,
  depthByPriority: () => ReadonlyMap<number, number>,
  active: () => number,
  runs: readonly Iterable<{ readonly startedAt: number }>[],
): ReconcileQueueView {
  const running = (longest: boolean): number => {
    const now = scheduler.now();
    let total = 0;
    let max = 0;
    for (const set of runs) {
      for (const run of set) {
        const ms = Math.max(0, now - run.startedAt);
        total += ms;
        max = Math.max(max, ms);
      }
    }
    return longest ? max : total;
  };
  return Object.freeze({
    get depth() {
      return depth();
    },
    get depthByPriority() {
      return depthByPriority();
    },
    get activeWorkers() {
      return active();
    },
    concurrency,
    get unfinishedWorkMs() {
      return running(false);
    },
    get longestRunningMs() {
      return running(true);
    },
  });
}

/**
 * The method `name` of `hook`, called on it, or `undefined` when there is none, so that the hot path tests one field.
 * What the method throws is reported (`config.onUnhandledError`, else a process warning), never thrown into the
 * operator: a broken hook must not stop reconciles. Internal.
 */
export function hookOf<K extends keyof ReconcileMetrics>(
  hook: ReconcileMetrics | undefined,
  name: K,
): NonNullable<ReconcileMetrics[K]> | undefined {
  const method = hook?.[name] as ((this: ReconcileMetrics, a: unknown, b: unknown, c: unknown) => void) | undefined;
  if (typeof method !== 'function') return undefined;
  const guarded = (a: unknown, b: unknown, c: unknown): void => {
    try {
      method.call(hook!, a, b, c);
    } catch (error) {
      reportError(new Error(`reconcile: the metrics hook's ${name}() threw: ${messageOf(error)}`, { cause: error }));
    }
  };
  return guarded as NonNullable<ReconcileMetrics[K]>;
}

/** Throws a `TypeError` unless `hook` is undefined or an object whose every hook method present is a function. */
export function checkMetrics(hook: unknown): void {
  if (hook === undefined) return;
  if (hook === null || typeof hook !== 'object') {
    throw new TypeError(
      `reconcile: metrics must be an object of hook methods (${HOOK_METHODS.join(', ')}), got ${hook === null ? 'null' : typeof hook}`,
    );
  }
  for (const name of HOOK_METHODS) {
    const method = (hook as Record<string, unknown>)[name];
    if (method !== undefined && typeof method !== 'function') {
      throw new TypeError(
        `reconcile: metrics.${name} must be a function, got ${method === null ? 'null' : typeof method}`,
      );
    }
  }
}

const HOOK_METHODS = [
  'opened',
  'closed',
  'added',
  'started',
  'staleRead',
  'done',
  'outcome',
] as const satisfies readonly (keyof ReconcileMetrics)[];
