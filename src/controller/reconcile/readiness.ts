/**
 * The `readiness` hook of `reconcile`: what the operator asks before a run of a key starts, so that the run can wait
 * for a condition of that key (read-your-own-writes: its caches have caught up with what its last runs wrote).
 *
 * The hook is the seam (`readiness-hook.ts`); `ReadinessHolds` is how the runner keeps the keys that wait. A queue
 * that holds keys itself can replace `ReadinessHolds` and keep the hook.
 */
import { take, type Observable, type Subscription } from 'rxjs';
import { messageOf } from '../../error-messages/index.js';
import { MAX_REASONS, MORE_REASONS, type KeyedQueue, type KeyState } from './keyed-queue.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileReadiness, StaleRead } from 'rxkube/extend';
import type { ReconcileKeyRequest } from './types.js';

/** A key that may start now, the stale read it starts with, if any, and the reasons of triggers it absorbed. */
export interface Released {
  readonly state: KeyState;
  readonly staleRead: StaleRead | undefined;
  readonly reasons: readonly string[];
}

/** A key whose wait is not over. */
interface Waiting {
  readonly state: KeyState;
  /** The reasons of the triggers that arrived while it waited. */
  readonly reasons: string[];
  subscription: Subscription | undefined;
}

/**
 * The keys taken from the queue that wait for their readiness, and those whose wait is over but have no slot yet.
 * A waiting key stays `running` for the queue (so it never runs beside itself) but holds no slot; the runner hands
 * its triggers to {@link absorb}, so they coalesce into the run it waits for. Internal to the runner.
 */
export class ReadinessHolds {
  private readonly waiting = new Map<string, Waiting>();
  private readonly released: Released[] = [];
  /** The released keys, by key, whose runs have not begun: triggers still coalesce into them. */
  private readonly releasedByKey = new Map<string, Released>();

  constructor(
    private readonly readiness: ReconcileReadiness,
    private readonly queue: KeyedQueue,
    /** Called when a wait is over, to start what may start. */
    private readonly onReady: () => void,
  ) {}

  /** Keys waiting or released but not started: part of the depth. */
  get size(): number {
    return this.waiting.size + this.released.length;
  }

  /**
   * The next key whose wait is over, first released first; with `above`, the first whose run's priority is above
   * it (for a held-back slot: see `ReconcileOptions.reserved`).
   */
  next(above?: number): Released | undefined {
    const { released } = this;
    let at = 0;
    if (above !== undefined) while (at < released.length && released[at]!.state.runPriority <= above) at += 1;
    if (at >= released.length) return undefined;
    const next = at === 0 ? released.shift()! : released.splice(at, 1)[0]!;
    this.releasedByKey.delete(next.state.key);
    return next;
  }

  /**
   * A trigger for `key`: true when the key is held here (waiting, or released without a slot yet), and the trigger,
   * its reason kept, coalesces into the run it waits for; false when the queue must take it.
   */
  absorb(key: string, reason: string | undefined): boolean {
    const held = this.waiting.get(key) ?? this.releasedByKey.get(key);
    if (held === undefined) return false;
    if (reason !== undefined && held.reasons.length < MAX_REASONS && !held.reasons.includes(reason))
      (held.reasons as string[]).push(reason);
    return true;
  }

  /**
   * Asks the hook about `state`, just taken from the queue. False: it may start now. True: it waits (or was released
   * at once), and comes back through {@link next}.
   */
  hold(state: KeyState): boolean {
    let wait$: Observable<StaleRead | undefined> | undefined;
    try {
      wait$ = this.readiness.wait(state.key);
    } catch (error) {
      report('wait', error);
      return false;
    }
    if (wait$ === undefined) return false;
    let settled = false;
    let sync = true;
    const waiting: Waiting = { state, reasons: [], subscription: undefined };
    this.waiting.set(state.key, waiting);
    const release = (staleRead: StaleRead | undefined): void => {
      if (settled) return;
      settled = true;
      this.waiting.delete(state.key);
      const released: Released = { state, staleRead, reasons: waiting.reasons };
      this.released.push(released);
      this.releasedByKey.set(state.key, released);
      waiting.subscription?.unsubscribe();
      // A synchronous release is picked up by the caller's loop.
      if (!sync) this.onReady();
    };
    try {
      waiting.subscription = wait$.pipe(take(1)).subscribe({
        next: (staleRead) => release(staleRead),
        error: (error: unknown) => {
          report('wait', error);
          release(undefined);
        },
        complete: () => release(undefined),
      });
    } catch (error) {
      report('wait', error);
      release(undefined);
    }
    sync = false;
    if (settled) waiting.subscription?.unsubscribe();
    return true;
  }

  /** Tells the hook a run begins. */
  began(request: ReconcileKeyRequest): void {
    if (this.readiness.began === undefined) return;
    try {
      this.readiness.began(request);
    } catch (error) {
      report('began', error);
    }
  }

  /** Calls `visit` with each key waiting or released without a slot yet (for the depth by priority). */
  forEachHeld(visit: (state: KeyState) => void): void {
    for (const { state } of this.waiting.values()) visit(state);
    for (const { state } of this.released) visit(state);
  }

  /** Intake stopped: every held key is dropped, as waiting keys are. */
  drop(now: number): void {
    const states = [...this.waiting.values(), ...this.released].map(({ state }) => state);
    this.dispose();
    for (const state of states) {
      this.queue.finish(state, now, false);
      this.queue.release(state);
    }
  }

  /** Cancels every wait. */
  dispose(): void {
    for (const { subscription } of this.waiting.values()) subscription?.unsubscribe();
    this.waiting.clear();
    this.released.length = 0;
    this.releasedByKey.clear();
  }
}

function report(method: string, error: unknown): void {
  reportError(new Error(`reconcile: the readiness hook's ${method}() failed: ${messageOf(error)}`, { cause: error }));
}

/**
 * `reasons` then the `more` it lacks: the reasons of a run that absorbed triggers while it waited, folded past
 * {@link MAX_REASONS} as the queue folds them.
 */
export function withReasons(reasons: readonly string[], more: readonly string[]): readonly string[] {
  const all = [...reasons];
  for (const reason of more) {
    if (all.includes(reason)) continue;
    if (all.length >= MAX_REASONS) {
      if (all[all.length - 1] !== MORE_REASONS) all.push(MORE_REASONS);
      break;
    }
    all.push(reason);
  }
  return all;
}
