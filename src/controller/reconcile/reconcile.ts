/**
 * The reconcile operator: client-go's workqueue and kube-rs's scheduler+runner as one RxJS operator.
 */
import { Observable } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import { resolveOptions } from './options.js';
import type { Lookup, ReconcileLookupOptions, ReconcileOptions } from './options.js';
import { Runner } from './runner.js';
import type { ReconcileEvent, ReconcileFn, ReconcileKeyFn, ReconcileTrigger } from './types.js';

/**
 * Turns a stream of keys (or `{ key, reason }` triggers) into reconcile runs of `fn`, and reports each run as
 * {@link ReconcileEvent}s.
 *
 * # Guarantees
 * 1. Never concurrent per key: a key has at most one run in flight.
 * 2. Coalescing: triggers for a waiting key merge into its one pending run; a trigger during a run marks the key
 *    dirty, and it runs exactly once more right after. At most one running and one pending run per key.
 * 3. Latest state: `fn` gets the key's object from `lookup` (an informer's `current()`, or a function) evaluated at
 *    start time (`undefined` = deleted), never a trigger payload.
 *    Without a `lookup`, `fn` gets a {@link ReconcileKeyRequest}: no `object` in its type, and reading one throws,
 *    so "no lookup" can never pass for "deleted".
 * 4. Bounded concurrency: at most `concurrency` runs at once; which ready key starts next is 15–16 below (among keys
 *    of one priority and one fairness group: first come, first served, by the time they became ready).
 * 5. Retries: a failure is retried after the per-key limiter's delay (default 5 ms · 2^n, cap 1000 s). The count
 *    resets only on success (or a drop, or a terminal failure). Past `maxRetries` the key is `dropped`. A
 *    {@link TerminalError} is not retried.
 * 6. Global rate limit: failure retries also wait for the global limiter (default token bucket 10 qps, burst 100;
 *    `false` disables it); the delay is the larger of the two. Fresh triggers and requeues are not limited.
 * 7. Requeue: `{ requeueAfter: ms }` schedules the key again after exactly that delay, with no failure counted and
 *    no token taken (controller-runtime's `AddAfter`): a requested requeue is a schedule, not a retry, so any number
 *    of periodic requeues neither stretch each other nor delay a retry. The earliest scheduled time wins; a fresh
 *    trigger makes the key ready at once (this also cuts a retry backoff short, as in client-go).
 * 8. Gating: nothing starts while `gate`'s latest value is not `true`; triggers meanwhile are deduplicated and held.
 *    Closing the gate aborts the signal of every run in flight. A run that then fails, whatever with, is not the
 *    reconcile's failure: it is reported `failed` with `gateClosed: true` and nothing after it, no failure is
 *    counted (no backoff, no token, no charge against `maxRetries`), and the key waits, ready, with the run's
 *    reasons and attempt number, to run as soon as the gate opens again. A run that succeeds is a success.
 * 9. Shutdown: on `stop$`, intake stops, waiting keys are dropped, in-flight runs may finish for up to
 *    `drainTimeout` (then they are cancelled and reported `failed` with a `ReconcileCancelledError`), and the output
 *    completes. Unsubscribing instead cancels everything at once: in-flight Observables are unsubscribed,
 *    Promises abandoned, timers cleared.
 * 10. Timeouts: a run longer than `timeout` counts as a failure (`ReconcileTimeoutError`), reported at the
 *     deadline, and its `signal` is aborted. An Observable is unsubscribed at once. A Promise cannot be cancelled:
 *     it keeps holding its key and its concurrency slot until it settles (as a Go worker stays blocked on a
 *     reconcile that ignores its context), so the key never runs concurrently with itself; its retry starts once
 *     both the backoff has passed and the Promise has settled, and whatever it settles with is ignored. Its
 *     `failed` event is marked `held`, and a `released` event reports when it settles: until then it is a run in
 *     flight, for metrics as for the concurrency bound.
 * 11. Panics: a synchronous throw, a rejection, an Observable error, a malformed `requeueAfter` or a misbehaving limiter
 *     is a failure (or is reported on the event), never an error of the output Observable.
 * 12. Output: per key, events follow `started ( succeeded requeued? | failed ( retrying | dropped )? released? )`, each
 *     carrying key, attempt, coalesced reasons (plus `'retry'` / `'requeue'` for runs those scheduled), queue wait
 *     and duration. Invalid input values are reported as `rejected` events.
 * 13. Memory: the operator keeps state for a key only while it runs, waits, is backing off or has a requeue
 *     scheduled; a key whose run ended with nothing more to do costs nothing, however many keys were ever seen.
 * 14. Metrics: a `metrics` hook (`ReconcileMetrics`, from `rxkube/extend`) hears the queue's adds, starts, runs done and outcomes
 *     as they happen (with their priority), and reads its depth (also by priority), workers and unfinished work
 *     through a live view; without one, nothing is called.
 * 15. Priorities with aging: a trigger's `priority` (default `NORMAL_PRIORITY`, 0; `toKeys` and the other trigger
 *     operators give lists and resyncs `LOW_PRIORITY`) orders the ready keys, higher first. A pending run has the
 *     highest priority coalesced into it; a retry keeps its run's, a requeue takes `{ requeueAfter, priority }`'s,
 *     else its run's. Aging bounds every wait: a key that has waited `aging.after` (30 s) is overdue, and while one
 *     is, one start in `aging.every` (4) takes the key ready longest; with `s` slots (`concurrency`, less held-back
 *     ones) aging may put those starts off by up to `D = (every - 1) · (s - 1)` starts in all and make them up at
 *     the lower keys' turns, so that a burst of higher keys is not cut into. So a key K with n keys ready before it
 *     and still waiting at `readyAt + after` starts within the first `(n + 1) · every + D` starts from then on, and,
 *     with runs holding a slot at most d, by `readyAt + after + ⌈((n + 1) · every + D) / s⌉ · d` (plus the time
 *     the gate is closed), whatever the priorities of the other keys. The starts counted are takes from the ready
 *     keys: a key released by the `readiness` hook (below) starts before them and is not counted, so each such
 *     key can add one run to the time bound.
 * 16. Fairness: within a priority, fairness groups (`fairness(key)`, default the namespace; cluster-scoped keys form
 *     one group) take turns round-robin, so a key whose group has no other ready key of its priority starts after at
 *     most one start of each other group with ready keys of that priority (aging starts and higher priorities
 *     aside): a namespace that floods the queue delays another's key by one run.
 * 17. Held-back slots: with `reserved: { slots, above }`, runs of keys at priority `above` (default low) or lower
 *     never fill more than `concurrency - slots` slots, and a ready key never waits while a slot it may use is free,
 *     so a live change starts at once while a backlog of lower keys waits. A start in a held-back slot is not among
 *     the starts the aging bound counts, and lower keys have `concurrency - slots` slots in its time form.
 * - Readiness: with a `readiness` hook (`ReconcileReadiness`, from `rxkube/extend`; `ownWrites.readYourWrites` is one), a key about to start
 *   first waits until the hook says so, holding no slot, in the depth, with the triggers that reach it meanwhile
 *   coalesced into that run; a run the hook let start stale says so (`staleRead` on `started`, and the metrics
 *   hook's `staleRead`). Every guarantee above holds for the run once it starts.
 *
 * # Caveats
 * - Results: `{ requeueAfter: ms }` requeues; any other value (the object an API call returned, `null`, a string)
 *   is success and ignored, so `() => from(api.patch(...))` needs no mapping. An object whose `requeueAfter` is
 *   not a finite number >= 0 fails with a `TypeError` named `InvalidReconcileResultError`; a misspelt property is
 *   not detected.
 * - `fn` returning an Observable: its first value (or completion without one) is the result; the rest is ignored
 *   and it is unsubscribed. A Promise cannot be cancelled: on timeout, drain timeout or unsubscribe its `signal` is
 *   aborted and its outcome ignored; honour `request.signal` so abandoned work stops.
 * - A Promise that never settles after its timeout holds its key and one concurrency slot forever, and keeps a
 *   completed source or a drain waiting (up to `drainTimeout`): honour the signal.
 * - When the source completes, the output completes once nothing runs or waits; scheduled retries and requeues
 *   keep it alive. It errors only if the source, `gate` or `stop$` errors.
 * - While draining, a finished run reports `succeeded` or `failed` only: no retry or requeue is scheduled.
 * - Reasons are deduplicated; past 8 distinct reasons per run the rest fold into one `'...'` entry.
 * - A run pulled forward by a fresh trigger replaces the scheduled retry or requeue (one pending run per key, as in
 *   kube-rs): nothing runs again at the old time unless that run asks for it.
 * - The default limiters are created per subscription; limiters passed in options are shared by every
 *   subscription that uses these options.
 * - Options are validated when `reconcile` is called; a bad option throws a `RangeError` there.
 * - The bound of 15 is relative to the keys ready before K: no order can start K before the work queued ahead of it
 *   is done (first come, first served would not either). What it rules out is starvation: controller-runtime's
 *   priority queue lets a stream of higher priorities delay a low key forever.
 * - `aging: { after: Infinity }` turns aging off: priorities are then strict, and a low key may wait forever.
 *
 * @example
 * ```ts
 * const events$ = merge(replicaSets.events$.pipe(toKeys()), pods.events$.pipe(toOwnerKeys({ kind: 'ReplicaSet' })))
 *   .pipe(
 *     reconcile(({ key, object }) => (object ? syncReplicaSet(object) : undefined), {
 *       concurrency: 4,
 *       gate: replicaSets.synced$,
 *       lookup: replicaSets, // the object type is inferred from the informer
 *     }),
 *   );
 * const subscription = events$.subscribe(logEvent); // unsubscribe = cancel everything now
 * ```
 */
export function reconcile<T>(
  fn: ReconcileFn<T>,
  options: ReconcileLookupOptions<T>,
): OperatorFunction<ReconcileTrigger | string, ReconcileEvent>;
/**
 * The same operator without a `lookup`: the reconcile function receives the key only (a
 * {@link ReconcileKeyRequest}, which has no `object`), with every other guarantee above.
 */
export function reconcile(
  fn: ReconcileKeyFn,
  options?: ReconcileOptions & { readonly lookup?: undefined },
): OperatorFunction<ReconcileTrigger | string, ReconcileEvent>;
export function reconcile<T>(
  fn: ReconcileFn<T> | ReconcileKeyFn,
  options: ReconcileOptions & { readonly lookup?: Lookup<T> | undefined } = {},
): OperatorFunction<ReconcileTrigger | string, ReconcileEvent> {
  if (typeof fn !== 'function') throw new TypeError('reconcile: fn must be a function (request) => result');
  const resolved = resolveOptions<T>(options);
  return (source) =>
    new Observable<ReconcileEvent>((subscriber) => {
      const runner = new Runner<T>(fn as ReconcileFn<T>, resolved, subscriber);
      runner.start(source);
      return () => runner.dispose();
    });
}
