/**
 * The workqueue's depth and adds, derived from outside the operator: from the triggers that enter it and the
 * events that leave it, following the coalescing rules the operator states.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

/** What the model knows of one key; idle keys are forgotten. */
interface KeyModel {
  /** Ready to run and counted in the depth. */
  waiting: boolean;
  running: boolean;
  /** Triggered while running: counted in the depth, runs again right after. */
  dirty: boolean;
  /** The scheduled retry or requeue that makes it ready. */
  timer: Subscription | undefined;
}

/**
 * client-go's `workqueue_depth` and `workqueue_adds_total` for one `reconcile` operator, derived from its input
 * triggers and output events:
 * - an add is a trigger that makes an idle or delayed key ready, a trigger that marks a running key dirty, or a
 *   retry or requeue whose delay ran out (client-go's `AddAfter` ends in an `Add`);
 * - the depth counts keys ready to run and keys marked dirty while running, as client-go's dirty set does; a
 *   trigger for a key already counted is coalesced and adds nothing.
 *
 * # Caveats
 * - A key the model never saw triggered (a pipeline that does not pass its triggers through) counts one add when
 *   it starts, and no depth.
 * - It is told when runs end; for a Promise abandoned at its `timeout`, that is its `released` event, not its
 *   `failed` one (see `ControllerMetrics`).
 */
export class QueueModel {
  private readonly keys = new Map<string, KeyModel>();
  private count = 0;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly added: () => void,
    private readonly depthChanged: (depth: number) => void,
  ) {}

  get depth(): number {
    return this.count;
  }

  trigger(key: string): void {
    const state = this.state(key);
    if (state.waiting || state.dirty) return;
    this.added();
    if (state.running) state.dirty = true;
    else this.wait(state);
    this.setDepth(this.count + 1);
  }

  started(key: string): void {
    const state = this.state(key);
    if (state.waiting) this.setDepth(this.count - 1);
    // A delay that ran out in the operator before our timer fired: the add happened now.
    else this.added();
    state.timer?.unsubscribe();
    state.timer = undefined;
    state.waiting = false;
    state.running = true;
  }

  ended(key: string): void {
    const state = this.keys.get(key);
    if (state === undefined) return;
    state.running = false;
    if (state.dirty) {
      state.dirty = false;
      state.waiting = true;
    }
    this.forgetIfIdle(key, state);
  }

  /** A retry or requeue in `delayMs`; 0 means the key is ready now (or already was). */
  delayed(key: string, delayMs: number): void {
    const state = this.state(key);
    if (state.waiting || state.running) return;
    if (delayMs <= 0) {
      this.trigger(key);
      return;
    }
    state.timer?.unsubscribe();
    state.timer = this.scheduler.schedule(() => {
      state.timer = undefined;
      if (this.keys.get(key) === state) this.trigger(key);
    }, delayMs);
  }

  /** The operator stopped intake and dropped every waiting key; running keys will not run again. */
  clear(): void {
    for (const [key, state] of this.keys) {
      state.timer?.unsubscribe();
      state.timer = undefined;
      state.waiting = false;
      state.dirty = false;
      this.forgetIfIdle(key, state);
    }
    this.setDepth(0);
  }

  dispose(): void {
    for (const state of this.keys.values()) state.timer?.unsubscribe();
    this.keys.clear();
    this.setDepth(0);
  }

  private wait(state: KeyModel): void {
    state.timer?.unsubscribe();
    state.timer = undefined;
    state.waiting = true;
  }

  private state(key: string): KeyModel {
    let state = this.keys.get(key);
    if (state === undefined) {
      state = { waiting: false, running: false, dirty: false, timer: undefined };
      this.keys.set(key, state);
    }
    return state;
  }

  private forgetIfIdle(key: string, state: KeyModel): void {
    if (!state.waiting && !state.running && !state.dirty && state.timer === undefined) this.keys.delete(key);
  }

  private setDepth(depth: number): void {
    this.count = depth;
    this.depthChanged(depth);
  }
}
