/**
 * Small stateful helpers of the reflector: its batched output, the single in-flight request slot and the per-watch
 * timers.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import { Subscription } from 'rxjs';
import type { WatchEvent } from './types.js';

/** Where the reflector's batches go: a subscriber of batches, or one that flattens them. */
export interface BatchSink<T extends KubernetesObject> {
  next(batch: readonly WatchEvent<T>[]): void;
  error(error: unknown): void;
}

/**
 * The reflector's output. Events emitted inside {@link BatchOutput.batch} (a relist, the lines of one chunk) leave
 * together as one batch when the outermost `batch` call returns; any other event leaves at once, as a batch of one.
 *
 * # Guarantees
 * - Order is kept: a batch holds its events in emission order, status and problems included.
 * - Nothing is held back: the batch leaves when `batch` returns, even if its body threw, and before an error.
 */
export class BatchOutput<T extends KubernetesObject> {
  private depth = 0;
  private pending: WatchEvent<T>[] = [];

  constructor(private readonly sink: BatchSink<T>) {}

  next(event: WatchEvent<T>): void {
    if (this.depth > 0) this.pending.push(event);
    else this.sink.next([event]);
  }

  /** Runs `fill`, collecting what it emits into one batch (nested calls join the outermost one). */
  batch(fill: () => void): void {
    this.depth += 1;
    try {
      fill();
    } finally {
      this.depth -= 1;
      if (this.depth === 0) this.flush();
    }
  }

  /** Errors the output, after the events collected so far. */
  error(error: unknown): void {
    this.flush();
    this.sink.error(error);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.sink.next(batch);
  }
}

/** Handlers for one request; events of a superseded or aborted request never reach them. */
export interface RequestHandlers<V> {
  next(value: V): void;
  error(err: unknown): void;
  complete?(): void;
  /** Called instead of any other handler when the request outlived its time limit; it is aborted first. */
  timeout?(): void;
}

/**
 * Holds at most one in-flight request. Starting a request aborts the previous one.
 *
 * # Guarantees
 * - The new request is installed before it is subscribed, so a handler that runs synchronously during `subscribe`
 *   and starts the next request is not overwritten by it.
 * - After `abort()`, `close()` or a newer `run()`, the old request's events are ignored and its time limit is
 *   cancelled: a closed slot leaves nothing scheduled.
 * - With `timeoutMs`, a request that has not finished (errored or completed) in time is aborted and only
 *   `handlers.timeout` is called.
 */
export class RequestSlot {
  private current = new Subscription();
  private closed = false;

  constructor(private readonly scheduler: SchedulerLike) {}

  run<V>(source: Observable<V>, handlers: RequestHandlers<V>, timeoutMs?: number): void {
    if (this.closed) return;
    this.current.unsubscribe();
    const container = new Subscription();
    this.current = container;
    const live = (): boolean => this.current === container && !container.closed && !this.closed;
    if (timeoutMs !== undefined) {
      container.add(this.scheduler.schedule(() => {
        if (!live()) return;
        container.unsubscribe();
        handlers.timeout?.();
      }, timeoutMs));
    }
    const settle = (): void => {
      // A finished request no longer needs its time limit; cancelling it keeps the scheduler free of dead actions.
      container.unsubscribe();
    };
    container.add(
      source.subscribe({
        next: (v) => live() && handlers.next(v),
        error: (e: unknown) => {
          if (!live()) return;
          settle();
          handlers.error(e);
        },
        complete: () => {
          if (!live()) return;
          settle();
          handlers.complete?.();
        },
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
 * - `stop()` cancels both; `dispose()` also refuses every later `start`; every timer goes through the given
 *   scheduler.
 */
export class WatchTimers {
  private dead: Subscription | undefined;
  private healthy: Subscription | undefined;
  private lastActivity = 0;
  private disposed = false;

  constructor(private readonly scheduler: SchedulerLike) {}

  /** Starts both timers for a new connection; does nothing once {@link dispose} was called. */
  start(deadAfterMs: number, onDead: (idleMs: number) => void, healthyAfterMs: number, onHealthy: () => void): void {
    this.stop();
    if (this.disposed) return;
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

  /** Stops both timers for good: a later `start` schedules nothing. */
  dispose(): void {
    this.disposed = true;
    this.stop();
  }
}
