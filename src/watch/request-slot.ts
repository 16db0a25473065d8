/**
 * The reflector's single in-flight request: starting one aborts the previous, and a time limit aborts a slow one.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import { Subscription } from 'rxjs';

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
      container.add(
        this.scheduler.schedule(() => {
          if (!live()) return;
          container.unsubscribe();
          handlers.timeout?.();
        }, timeoutMs),
      );
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
