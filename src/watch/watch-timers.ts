/**
 * The timers of one watch connection: dead-connection detection and the backoff reset after a healthy stretch.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * The two timers of one watch connection: dead-connection detection and backoff reset after a healthy stretch.
 *
 * # Guarantees
 * - `onDead(idleMs)` fires once no activity has been seen for `deadAfterMs`; activity only records a timestamp,
 *   and the single timer is pushed forward lazily, so a busy watch costs no scheduler action per line.
 * - `onHealthy()` fires once the watch has stayed up for `healthyAfterMs`.
 * - `limitDeadAfter` lowers the running connection's bound at once: a silence already past it fires `onDead` on
 *   the scheduler's next turn, not synchronously.
 * - `stop()` cancels both; `dispose()` also refuses every later `start`; every timer goes through the given
 *   scheduler.
 */
export class WatchTimers {
  private dead: Subscription | undefined;
  private healthy: Subscription | undefined;
  private lastActivity = 0;
  private disposed = false;
  private deadAfterMs = Number.POSITIVE_INFINITY;
  private onDead: (idleMs: number) => void = () => undefined;

  /** Fires `onDead` once the silence reaches `deadAfterMs`, or looks again when it would. */
  private readonly check = (): void => {
    const idle = this.scheduler.now() - this.lastActivity;
    if (idle < this.deadAfterMs) {
      this.dead = this.scheduler.schedule(this.check, this.deadAfterMs - idle);
      return;
    }
    this.dead = undefined;
    this.onDead(idle);
  };

  constructor(private readonly scheduler: SchedulerLike) {}

  /** Starts both timers for a new connection; does nothing once {@link dispose} was called. */
  start(deadAfterMs: number, onDead: (idleMs: number) => void, healthyAfterMs: number, onHealthy: () => void): void {
    this.stop();
    if (this.disposed) return;
    this.lastActivity = this.scheduler.now();
    this.deadAfterMs = deadAfterMs;
    this.onDead = onDead;
    this.dead = this.scheduler.schedule(this.check, deadAfterMs);
    this.healthy = this.scheduler.schedule(() => {
      this.healthy = undefined;
      onHealthy();
    }, healthyAfterMs);
  }

  /**
   * Lowers the silence the running connection may show to `deadAfterMs` (counted from its last activity, as
   * before); a higher value, or no connection, changes nothing.
   */
  limitDeadAfter(deadAfterMs: number): void {
    if (this.dead === undefined || deadAfterMs >= this.deadAfterMs) return;
    this.deadAfterMs = deadAfterMs;
    this.dead.unsubscribe();
    this.dead = this.scheduler.schedule(
      this.check,
      Math.max(0, deadAfterMs - (this.scheduler.now() - this.lastActivity)),
    );
  }

  touch(): void {
    this.lastActivity = this.scheduler.now();
  }

  stop(): void {
    this.dead?.unsubscribe();
    this.dead = undefined;
    this.healthy?.unsubscribe();
    this.healthy = undefined;
  }

  /** Stops both timers for good: a later `start` schedules nothing. */
  dispose(): void {
    this.disposed = true;
    this.stop();
  }
}
