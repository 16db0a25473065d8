/**
 * `slowStartBatch`, as kube-controller-manager batches a ReplicaSet's Pod creates: 1, 2, 4, … at once, and no
 * further batch after one that failed.
 * @module
 */
import { catchError, concatMap, defer, forkJoin, last, map, of, type Observable } from 'rxjs';

/** kube-controller-manager's `SlowStartInitialBatchSize`. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** How a slow start went. */
export interface SlowStartResult {
  /** Calls that succeeded. */
  readonly successes: number;
  /** The size of every batch that was started, in order. */
  readonly batches: readonly number[];
  /** The first failure (in call order) of the batch that failed; absent when every batch succeeded. */
  readonly error?: unknown;
}

/** One call's outcome. */
type Outcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

/**
 * Makes `count` calls of `call` in batches: `initialBatchSize` at once, then twice as many as the previous batch
 * (never more than are left), each batch starting when the previous one has wholly finished. After a batch in
 * which any call failed, the remaining batches are skipped. A large scale-up into a failing condition (a quota, a
 * webhook refusing every Pod) thus costs one failed request rather than hundreds.
 *
 * # Guarantees
 * - Emits one {@link SlowStartResult} and completes; never errors: failures are counted, and the first one is
 *   reported in `error`.
 * - Calls of one batch run concurrently; `onBatch(size)` is called as each batch starts.
 * - `count - successes` is the number of calls that failed or were never made: what kube-controller-manager takes
 *   off its expected creations.
 * - A call counts as succeeded when its Observable completes without error (whatever it emitted).
 * - Unsubscribing cancels the calls in flight and starts no more.
 *
 * # Caveats
 * - Throws a `RangeError` at once for a `count` that is not an integer >= 0 or an `initialBatchSize` that is not an
 *   integer >= 1.
 */
export function slowStartBatch(
  count: number,
  initialBatchSize: number,
  call: (index: number) => Observable<unknown>,
  onBatch?: (size: number) => void,
): Observable<SlowStartResult> {
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`slowStartBatch: count must be an integer >= 0, got ${String(count)}`);
  if (!Number.isInteger(initialBatchSize) || initialBatchSize < 1) {
    throw new RangeError(`slowStartBatch: initialBatchSize must be an integer >= 1, got ${String(initialBatchSize)}`);
  }
  const step = (done: number, size: number, batches: readonly number[]): Observable<SlowStartResult> =>
    defer(() => {
      if (size === 0) return of({ successes: done, batches });
      onBatch?.(size);
      const calls = Array.from({ length: size }, (_, i) =>
        defer(() => call(done + i)).pipe(
          last(null, null),
          map((): Outcome => ({ ok: true })),
          catchError((error: unknown) => of<Outcome>({ ok: false, error })),
        ),
      );
      const started = [...batches, size];
      return forkJoin(calls).pipe(
        concatMap((outcomes) => {
          const successes = done + outcomes.filter((outcome) => outcome.ok).length;
          const failed = outcomes.find((outcome): outcome is Extract<Outcome, { ok: false }> => !outcome.ok);
          // Every earlier batch succeeded whole, so `done + size` calls have been made.
          return failed !== undefined
            ? of<SlowStartResult>({ successes, batches: started, error: failed.error })
            : step(successes, Math.min(2 * size, count - done - size), started);
        }),
      );
    });
  return step(0, Math.min(count, initialBatchSize), []);
}
