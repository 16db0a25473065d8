/**
 * A TestScheduler whose flush refuses to spin: a controller that keeps scheduling at one instant (a timer re-armed
 * with a delay that rounds to nothing, a zero-delay retry loop) fails the run instead of hanging it.
 * @module
 */
import { TestScheduler } from 'rxjs/testing';

/** How many actions one virtual instant may run before the run counts as stuck. */
export const MAX_ACTIONS_PER_INSTANT = 200_000;

/** The error of a run whose virtual time stopped advancing: `why` says what kept running at that instant. */
export class VirtualTimeStuckError extends Error {
  constructor(
    readonly frame: number,
    why = `more than ${MAX_ACTIONS_PER_INSTANT} actions ran at that instant (a timer re-armed at the same time forever?)`,
  ) {
    super(`virtual time stopped at ${frame} ms: ${why}`);
    this.name = 'VirtualTimeStuckError';
  }
}

interface QueuedAction {
  readonly delay: number;
  readonly state: unknown;
  execute(state: unknown, delay: number): unknown;
  unsubscribe(): void;
}

/**
 * A `TestScheduler` for whole-controller runs (no hot observables or `expectObservable` of its own): its flush is
 * `VirtualTimeScheduler`'s, plus a limit of {@link MAX_ACTIONS_PER_INSTANT} actions per instant, past which it
 * throws a {@link VirtualTimeStuckError}.
 */
export class GuardedTestScheduler extends TestScheduler {
  constructor() {
    super(() => undefined);
  }

  override flush(): void {
    const self = this as unknown as { actions: QueuedAction[]; frame: number };
    let last = Number.NaN;
    let count = 0;
    for (
      let action = self.actions[0];
      action !== undefined && action.delay <= this.maxFrames;
      action = self.actions[0]
    ) {
      self.actions.shift();
      self.frame = action.delay;
      count = self.frame === last ? count + 1 : 0;
      last = self.frame;
      if (count > MAX_ACTIONS_PER_INSTANT) {
        for (const pending of self.actions.splice(0)) pending.unsubscribe();
        throw new VirtualTimeStuckError(self.frame);
      }
      const error = action.execute(action.state, action.delay);
      if (error) {
        for (const pending of self.actions.splice(0)) pending.unsubscribe();
        throw error;
      }
    }
  }
}
