/**
 * Shared helpers for the controller specs: virtual-time runs and compact event formatting.
 */
import type { TestScheduler } from 'rxjs/testing';
import type { Observable } from 'rxjs';
import type { ReconcileEvent } from '../../src/controller/index.js';

/** One line per event (`fmt`), and virtual-time runs (`virtual`): the examples' specs share them. */
export { describeReconcile as fmt, inVirtualTime as virtual } from '../../examples/shared/virtual-time.js';
import { describeReconcile as fmt } from '../../examples/shared/virtual-time.js';

/** Subscribes once to `events$`; collects the raw events and `"<frame> <fmt(event)>"` lines (plus completion). */
export function record(
  events$: Observable<ReconcileEvent>,
  scheduler: TestScheduler,
): { events: ReconcileEvent[]; lines: string[] } {
  const events: ReconcileEvent[] = [];
  const lines: string[] = [];
  events$.subscribe({
    next: (event) => {
      events.push(event);
      lines.push(`${event.time} ${fmt(event)}`);
    },
    error: (error: unknown) => lines.push(`${scheduler.now()} error ${String(error)}`),
    complete: () => lines.push(`${scheduler.now()} complete`),
  });
  return { events, lines };
}

/** The lines of {@link record}. */
export function timeline(events$: Observable<ReconcileEvent>, scheduler: TestScheduler): string[] {
  return record(events$, scheduler).lines;
}

/** Subscribes to `events$` and collects the raw events. */
export function collect(events$: Observable<ReconcileEvent>): ReconcileEvent[] {
  const events: ReconcileEvent[] = [];
  events$.subscribe((event) => events.push(event));
  return events;
}

/**
 * A Promise-like result that settles at a virtual time: `then` callbacks run synchronously inside the scheduler
 * action, so a "Promise" reconcile can be marble-tested (real Promises settle in microtasks, outside virtual time).
 * The operator treats it exactly as a Promise: it cannot be cancelled.
 */
export function settleLater<V>(
  scheduler: { schedule(work: () => void, delay: number): unknown },
  delay: number,
  outcome: { value: V } | { error: unknown },
  onSettle?: () => void,
): PromiseLike<V> {
  const callbacks: Array<
    [((value: V) => unknown) | null | undefined, ((error: unknown) => unknown) | null | undefined]
  > = [];
  let settled = false;
  scheduler.schedule(() => {
    settled = true;
    onSettle?.();
    for (const [ok, fail] of callbacks) {
      if ('value' in outcome) ok?.(outcome.value);
      else fail?.(outcome.error);
    }
  }, delay);
  return {
    // biome-ignore lint/suspicious/noThenProperty: a hand-made thenable is what this helper is
    then(ok, fail) {
      if (settled) throw new Error('settleLater: then() after settling is not supported by this test helper');
      callbacks.push([ok as never, fail]);
      return undefined as never;
    },
  };
}
