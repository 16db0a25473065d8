/**
 * What the page shows of a controller's work queue and runs, read from the reconcile operator's metrics hook
 * (`ReconcileMetrics` from `rxkube/extend`, client-go's `MetricsProvider`) rather than rebuilt from its events, and
 * `observeController`, which plugs one into a controller definition without touching its code.
 * @module
 */
import { finalize, Subject, type Observable } from 'rxjs';
import type { ContextReconcile, ControllerDefinition, ReconcileEvent } from '../../src/index.js';
import type { ReconcileMetrics, ReconcileQueueView } from '../../src/extend.js';
import { messageOf } from '../shared/health.js';

/** Reasons a run row keeps: a busy key's run coalesces many triggers, and the page says how many it left out. */
export const REASONS_PER_RUN = 6;

/** A key in the queue, and since when (wall clock, ms since the epoch). */
export interface QueuedKey {
  readonly key: string;
  readonly since: number;
}

/** A key waiting for its retry or requeue delay: not in the depth until `at` (wall clock, ms). */
export interface DelayedKey {
  readonly key: string;
  readonly at: number;
  readonly why: 'retry' | 'requeue';
}

/** One finished run, as the page lists it. */
export interface RunRow {
  readonly key: string;
  /** When it ended (wall clock, ms). */
  readonly at: number;
  readonly outcome: 'succeeded' | 'failed';
  /** What followed: `requeue in 250 ms`, `retry in 10 ms (failure 2)`, `dropped after 5 failures`; absent when nothing did. */
  readonly followedBy?: string;
  /** The first {@link REASONS_PER_RUN} of the run's reasons. */
  readonly reasons: readonly string[];
  /** How many more reasons the run had. */
  readonly moreReasons: number;
  readonly attempt: number;
  readonly durationMs: number;
  readonly queueWaitMs: number;
  /** The error's message, for a failed run. */
  readonly error?: string;
}

/** Up to `limit` keys of a list, and how many there are. */
export interface KeyList<K> {
  readonly total: number;
  readonly keys: readonly K[];
}

/** One controller's queue, as the page shows it. */
export interface QueueState {
  readonly controller: string;
  /** Whether its reconcile operator is subscribed (false before it starts and after it ends). */
  readonly open: boolean;
  /** client-go's `workqueue_depth`: keys ready to run plus running keys triggered again. */
  readonly depth: number;
  readonly activeWorkers: number;
  /** `null` for an unbounded operator (`Infinity` is not JSON). */
  readonly concurrency: number | null;
  readonly longestRunningMs: number;
  /** Keys in the depth, oldest first. */
  readonly waiting: KeyList<QueuedKey>;
  /** Keys running now, oldest first. */
  readonly running: KeyList<QueuedKey>;
  /** Keys waiting for a retry or a requeue, soonest first. */
  readonly delayed: KeyList<DelayedKey>;
  /**
   * PLACEHOLDER for the queue's priorities: `null` until the reconcile operator's metrics hook reports a key's
   * priority (the queue has none yet). The page shows a "priority" column that says so.
   */
  readonly priorities: null;
}

/**
 * The queue and the recent runs of one controller, kept from its reconcile operator's metrics hook: give it as the
 * operator's `metrics` (or through {@link observeController}) and read {@link ReconcileWatch.state}.
 *
 * # Guarantees
 * - O(1) work per hook call (a `Map` write and a `Subject` emission); the lists are sorted and cut only when
 *   {@link ReconcileWatch.state} is read, at the page's update rate.
 * - `waiting` holds exactly the keys the operator counts in its depth (each `added` key until its run `started`),
 *   `running` the keys holding a worker (`started` until `done`), `delayed` the keys whose run was followed by a
 *   retry or a requeue with a delay, until they are `added` again.
 * - At most `recentRuns` finished runs are kept, newest first, each with at most {@link REASONS_PER_RUN} reasons
 *   (and how many more it had); older runs are forgotten.
 * - `changed$` emits after every hook call, so a sampler knows when to read again.
 *
 * # Caveats
 * - The operator drops its waiting keys on `stop$` without a call per key; the watch forgets them when it reads a
 *   depth of 0, and when the operator closes.
 * - Several operators reporting to one watch add up their depths and workers, and share the key lists.
 */
export class ReconcileWatch implements ReconcileMetrics {
  /** Emits after each change the hook reported. */
  readonly changed$: Observable<void>;
  private readonly changes = new Subject<void>();
  private readonly queues = new Set<ReconcileQueueView>();
  private readonly waiting = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private readonly delayed = new Map<string, DelayedKey>();
  private readonly runs: RunRow[] = [];

  /**
   * @param controller - the controller's name, shown on the page.
   * @param now - the wall clock, ms since the epoch (`wallClockNow` of the host's scheduler).
   * @param recentRuns - how many finished runs to keep.
   */
  constructor(
    readonly controller: string,
    private readonly now: () => number,
    private readonly recentRuns: number,
  ) {
    this.changed$ = this.changes.asObservable();
  }

  opened(queue: ReconcileQueueView): void {
    this.queues.add(queue);
    this.changes.next();
  }

  closed(queue: ReconcileQueueView): void {
    this.queues.delete(queue);
    if (this.queues.size === 0) {
      this.waiting.clear();
      this.running.clear();
      this.delayed.clear();
    }
    this.changes.next();
  }

  added(key: string): void {
    this.delayed.delete(key);
    if (!this.waiting.has(key)) this.waiting.set(key, this.now());
    this.changes.next();
  }

  started(key: string): void {
    this.waiting.delete(key);
    this.running.set(key, this.now());
    this.changes.next();
  }

  done(key: string): void {
    this.running.delete(key);
    this.changes.next();
  }

  outcome(
    run: Extract<ReconcileEvent, { type: 'succeeded' | 'failed' }>,
    next: Extract<ReconcileEvent, { type: 'requeued' | 'retrying' | 'dropped' }> | undefined,
  ): void {
    const at = this.now();
    // A delay of 0 means a fresh trigger made the key ready already: it is `added`, not delayed.
    if ((next?.type === 'retrying' || next?.type === 'requeued') && next.delayMs > 0 && !this.waiting.has(run.key)) {
      this.delayed.set(run.key, {
        key: run.key,
        at: at + next.delayMs,
        why: next.type === 'retrying' ? 'retry' : 'requeue',
      });
    }
    const row: RunRow = {
      key: run.key,
      at,
      outcome: run.type,
      ...(next === undefined ? {} : { followedBy: describeNext(next) }),
      reasons: run.reasons.slice(0, REASONS_PER_RUN),
      moreReasons: Math.max(0, run.reasons.length - REASONS_PER_RUN),
      attempt: run.attempt,
      durationMs: run.durationMs,
      queueWaitMs: run.queueWaitMs,
      ...(run.type === 'failed' ? { error: messageOf(run.error) } : {}),
    };
    this.runs.unshift(row);
    if (this.runs.length > this.recentRuns) this.runs.length = this.recentRuns;
    this.changes.next();
  }

  /** The queue now, each key list cut to `limit`. */
  state(limit: number): QueueState {
    let depth = 0;
    let activeWorkers = 0;
    let concurrency = 0;
    let longestRunningMs = 0;
    for (const queue of this.queues) {
      depth += queue.depth;
      activeWorkers += queue.activeWorkers;
      concurrency += queue.concurrency;
      longestRunningMs = Math.max(longestRunningMs, queue.longestRunningMs);
    }
    if (depth === 0) this.waiting.clear();
    return {
      controller: this.controller,
      open: this.queues.size > 0,
      depth,
      activeWorkers,
      concurrency: Number.isFinite(concurrency) ? concurrency : null,
      longestRunningMs,
      waiting: firstKeys(this.waiting, limit),
      running: firstKeys(this.running, limit),
      delayed: {
        total: this.delayed.size,
        keys: [...this.delayed.values()].sort((a, b) => a.at - b.at).slice(0, limit),
      },
      priorities: null,
    };
  }

  /** The finished runs kept, newest first. */
  recent(): readonly RunRow[] {
    return this.runs;
  }
}

function firstKeys(keys: ReadonlyMap<string, number>, limit: number): KeyList<QueuedKey> {
  const out: QueuedKey[] = [];
  // A Map iterates in insertion order: the oldest first.
  for (const [key, since] of keys) {
    if (out.length === limit) break;
    out.push({ key, since });
  }
  return { total: keys.size, keys: out };
}

function describeNext(next: Extract<ReconcileEvent, { type: 'requeued' | 'retrying' | 'dropped' }>): string {
  if (next.type === 'requeued') return `requeue in ${next.delayMs} ms`;
  if (next.type === 'retrying') return `retry in ${next.delayMs} ms (failure ${next.failures})`;
  return `dropped after ${next.failures} failures`;
}

/**
 * `definition`, unchanged but for its reconcile operators reporting to `watch` too (beside the host's metrics and
 * any `metrics` the controller gives itself): the dashboard sees the queue of a controller it did not write.
 *
 * # Guarantees
 * - Same name, same `needLeaderElection`, same events; only the operators' `metrics` option is added to.
 * - `onEnded` is called once when the controller's stream ends (drained, failed or unsubscribed).
 */
export function observeController(
  definition: ControllerDefinition,
  watch: ReconcileMetrics,
  onEnded: () => void = () => {},
): ControllerDefinition {
  return {
    ...definition,
    start: (context) => {
      const reconcile = ((fn: Parameters<ContextReconcile>[0], options: Parameters<ContextReconcile>[1] = {}) =>
        context.reconcile(
          fn as never,
          {
            ...options,
            metrics: options.metrics === undefined ? watch : bothHooks(watch, options.metrics),
          } as never,
        )) as ContextReconcile;
      return definition.start({ ...context, reconcile }).pipe(finalize(onEnded));
    },
  };
}

/** One hook that tells `a`, then `b`, everything. */
function bothHooks(a: ReconcileMetrics, b: ReconcileMetrics): ReconcileMetrics {
  return {
    opened: (queue) => {
      a.opened?.(queue);
      b.opened?.(queue);
    },
    closed: (queue) => {
      a.closed?.(queue);
      b.closed?.(queue);
    },
    added: (key, priority) => {
      a.added?.(key, priority);
      b.added?.(key, priority);
    },
    started: (key, waitMs, priority) => {
      a.started?.(key, waitMs, priority);
      b.started?.(key, waitMs, priority);
    },
    done: (key, durationMs) => {
      a.done?.(key, durationMs);
      b.done?.(key, durationMs);
    },
    outcome: (run, next) => {
      a.outcome?.(run, next);
      b.outcome?.(run, next);
    },
  };
}
