/**
 * Run outcomes: each reconcile run's events folded into one record (`succeeded` + `requeued`, `failed` +
 * `retrying` or `dropped`), which metrics and logs are built on.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { ReconcileEvent, ReconcileEventBase, ReconcileFailed, ReconcileSucceeded } from '../controller/index.js';

/** controller-runtime's `result` label values that a run can have. */
export type RunResult = 'success' | 'requeue_after' | 'error';

/** One finished run. */
export interface RunOutcome {
  readonly key: string;
  readonly attempt: number;
  readonly reasons: readonly string[];
  readonly queueWaitMs: number;
  readonly durationMs: number;
  /** The scheduler's time at which the run ended, ms. */
  readonly time: number;
  readonly result: RunResult;
  /** For `requeue_after`: the effective delay, ms. */
  readonly requeueAfterMs?: number;
  /** For `error`: what failed the run, whether it is terminal, and what follows. */
  readonly error?: unknown;
  readonly terminal?: boolean;
  readonly retryInMs?: number;
  readonly failures?: number;
  readonly dropped?: boolean;
  /** For `error`: the gate closed during the run (lost leadership); not counted, the key runs again when it opens. */
  readonly gateClosed?: true;
}

type Completion = ReconcileSucceeded | ReconcileFailed;

/**
 * Folds a controller's `ReconcileEvent`s into {@link RunOutcome}s, one per run.
 *
 * # Guarantees
 * - Exactly one outcome per `succeeded` or `failed` event, in order per key.
 * - The operator emits a follow-up (`requeued`, `retrying`, `dropped`) synchronously right after its completion,
 *   so a completion still without one when the scheduler next runs (a 0 ms action), when another event of its key
 *   arrives, or at `flush()`, has none: it is reported as it stands.
 */
export class OutcomeFolder {
  private readonly pending = new Map<string, Completion>();
  private action: Subscription | undefined;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly emit: (outcome: RunOutcome) => void,
  ) {}

  next(event: ReconcileEvent): void {
    switch (event.type) {
      case 'rejected':
      case 'released': // not a run of its own: the held run's outcome was its `failed` at the deadline
        return;
      case 'started':
        this.settle(event.key);
        return;
      case 'succeeded':
        this.settle(event.key);
        this.hold(event);
        return;
      case 'failed':
        this.settle(event.key);
        if (event.terminal) this.emit(outcomeOf(event));
        else this.hold(event);
        return;
      case 'requeued':
        this.pending.delete(event.key);
        this.emit({ ...base(event), result: 'requeue_after', requeueAfterMs: event.delayMs });
        return;
      case 'retrying':
        this.pending.delete(event.key);
        this.emit({ ...base(event), result: 'error', error: event.error, terminal: false, retryInMs: event.delayMs, failures: event.failures });
        return;
      case 'dropped':
        this.pending.delete(event.key);
        this.emit({ ...base(event), result: 'error', error: event.error, terminal: false, failures: event.failures, dropped: true });
        return;
    }
  }

  /** Reports every held completion as it stands (at the end of the stream). */
  flush(): void {
    this.action?.unsubscribe();
    this.action = undefined;
    const held = [...this.pending.values()];
    this.pending.clear();
    for (const completion of held) this.emit(outcomeOf(completion));
  }

  dispose(): void {
    this.action?.unsubscribe();
    this.action = undefined;
    this.pending.clear();
  }

  private hold(event: Completion): void {
    this.pending.set(event.key, event);
    this.action ??= this.scheduler.schedule(() => {
      this.action = undefined;
      this.flush();
    }, 0);
  }

  private settle(key: string): void {
    const held = this.pending.get(key);
    if (held === undefined) return;
    this.pending.delete(key);
    this.emit(outcomeOf(held));
  }
}

function base(event: ReconcileEventBase & { readonly durationMs: number }): Omit<RunOutcome, 'result'> {
  return {
    key: event.key, attempt: event.attempt, reasons: event.reasons, queueWaitMs: event.queueWaitMs, durationMs: event.durationMs, time: event.time,
  };
}

function outcomeOf(event: Completion): RunOutcome {
  return event.type === 'succeeded'
    ? { ...base(event), result: 'success' }
    : { ...base(event), result: 'error', error: event.error, terminal: event.terminal, ...(event.gateClosed === true ? { gateClosed: true as const } : {}) };
}
