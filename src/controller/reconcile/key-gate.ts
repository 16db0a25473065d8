/**
 * The `keyGate` of `reconcile`: a gate per key, for a controller whose keys are split among replicas (a key runs
 * here only while this replica holds the hash range the key lies in), and how the runner parks the keys it closes.
 */
import type { Observable } from 'rxjs';
import type { KeyedQueue, KeyState } from './keyed-queue.js';

/**
 * A gate per key (the `keyGate` option of `reconcile`), beside the operator's one `gate`: the manager's sharding
 * gives one that is open for the keys of the hash ranges this replica holds.
 *
 * # Guarantees (the operator's side)
 * - `isOpen(key)` is asked synchronously right before each run of `key` starts (after the `readiness` wait, if any):
 *   a run never starts while it answers `false`.
 * - On each value of `changed$` the operator asks again about every key it holds back or runs: a held-back key that
 *   is now open becomes ready (no failure counted, its reasons kept); the `signal` of every run in flight whose key
 *   is now closed is aborted, exactly as the `gate` closing aborts them: a failure the run then ends with is not
 *   counted (`failed` with `gateClosed: true`), and the key runs again once its gate opens.
 * - A key held back holds no concurrency slot; triggers for it coalesce into the run it waits for.
 *
 * # Caveats
 * - `isOpen` must be cheap and must not throw: it is called on the hot path. A throw counts as closed and is
 *   reported.
 * - Keys held back are not in the queue's depth.
 * - A run that ignores its signal goes on after its key closed; whoever closed it must wait for the run to end
 *   (the metrics hook's `done`) before it lets another replica run the key.
 */
export interface KeyGate {
  /** Whether a run of `key` may start now. */
  isOpen(key: string): boolean;
  /**
   * Emits whenever the answer of `isOpen` may have changed: a key (a string) when only that key's answer may have,
   * anything else when any key's may have.
   */
  readonly changed$: Observable<unknown>;
}

/** A key the gate held back, with the reasons a readiness wait absorbed for it. */
interface Parked {
  readonly state: KeyState;
  readonly reasons: readonly string[];
}

/**
 * The keys taken from the queue whose key gate was closed. A parked key stays `running` for the queue (a trigger
 * marks it dirty and coalesces), holds no slot, and goes back to the ready set when its gate opens. Internal to the
 * runner.
 */
export class KeyGateParking {
  private readonly parked = new Map<string, Parked>();

  constructor(
    private readonly gate: KeyGate,
    private readonly queue: KeyedQueue,
    private readonly onError: (error: unknown) => void,
  ) {}

  get size(): number {
    return this.parked.size;
  }

  /** Whether `key` may start now; a throw counts as closed. */
  isOpen(key: string): boolean {
    try {
      return this.gate.isOpen(key) === true;
    } catch (error) {
      this.onError(error);
      return false;
    }
  }

  /** Holds `state` back when its gate is closed; true when it did. */
  park(state: KeyState, reasons: readonly string[]): boolean {
    if (this.isOpen(state.key)) return false;
    this.parked.set(state.key, { state, reasons });
    return true;
  }

  /** Puts every parked key (or only `only`) whose gate is now open back into the ready set; true when any was. */
  reopen(now: number, only?: string): boolean {
    let any = false;
    const candidates =
      only === undefined ? [...this.parked] : this.parked.has(only) ? [[only, this.parked.get(only)!] as const] : [];
    for (const [key, { state, reasons }] of candidates) {
      if (!this.isOpen(key)) continue;
      this.parked.delete(key);
      this.queue.finish(state, now, true);
      this.queue.restore(state, reasons, now);
      this.queue.release(state);
      any = true;
    }
    return any;
  }

  /** Intake stopped: every parked key is dropped, as waiting keys are. */
  drop(now: number): void {
    const states = [...this.parked.values()].map(({ state }) => state);
    this.parked.clear();
    for (const state of states) {
      this.queue.finish(state, now, false);
      this.queue.release(state);
    }
  }

  dispose(): void {
    this.parked.clear();
  }
}
