/**
 * Small stateful helpers of the reflector: the single in-flight request slot and the per-watch timers.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import { Subscription } from 'rxjs';

/** Handlers for one request; events of a superseded or aborted request never reach them. */
export interface RequestHandlers<V> {
  next(value: V): void;
  error(err: unknown): void;
  complete?(): void;
}

/**
 * Holds at most one in-flight request. Starting a request aborts the previous one.
 *
 * # Guarantees
 * - The new request is installed before it is subscribed, so a handler that runs synchronously during `subscribe`
 *   and starts the next request is not overwritten by it.
 * - After `abort()`, `close()` or a newer `run()`, the old request's events are ignored.
 */
export class RequestSlot {
  private current = new Subscription();
  private closed = false;

  run<V>(source: Observable<V>, handlers: RequestHandlers<V>): void {
    if (this.closed) return;
    this.current.unsubscribe();
    const container = new Subscription();
    this.current = container;
    const live = (): boolean => this.current === container && !container.closed && !this.closed;
    container.add(
      source.subscribe({
        next: (v) => live() && handlers.next(v),
        error: (e: unknown) => live() && handlers.error(e),
        complete: () => live() && handlers.complete?.(),
      }),
    );
  }

  abort(): void {
    this.current.unsubscribe();
  }

  close(): void {
    this.closed = true;
    this.current.unsubscribe();
  }
}

/**
 * The two timers of one watch connection: dead-connection detection and backoff reset after a healthy stretch.
 *
 * # Guarantees
 * - `onDead(idleMs)` fires once no activity has been seen for `deadAfterMs`; activity only records a timestamp,
 *   and the single timer is pushed forward lazily, so a busy watch costs no scheduler action per line.
 * - `onHealthy()` fires once the watch has stayed up for `healthyAfterMs`.
 * - `stop()` cancels both; every timer goes through the given scheduler.
 */
export class WatchTimers {
  private dead: Subscription | undefined;
  private healthy: Subscription | undefined;
  private lastActivity = 0;

  constructor(private readonly scheduler: SchedulerLike) {}

  start(deadAfterMs: number, onDead: (idleMs: number) => void, healthyAfterMs: number, onHealthy: () => void): void {
    this.stop();
    this.lastActivity = this.scheduler.now();
    const check = (): void => {
      const idle = this.scheduler.now() - this.lastActivity;
      if (idle < deadAfterMs) {
        this.dead = this.scheduler.schedule(check, deadAfterMs - idle);
        return;
      }
      this.dead = undefined;
      onDead(idle);
    };
    this.dead = this.scheduler.schedule(check, deadAfterMs);
    this.healthy = this.scheduler.schedule(() => {
      this.healthy = undefined;
      onHealthy();
    }, healthyAfterMs);
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
}
