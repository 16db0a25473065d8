/**
 * The `readiness` hook of `reconcile`: what the operator asks before a run of a key starts, so that the run can wait
 * for a condition of that key (read-your-own-writes: its caches have caught up with what its last runs wrote).
 * `rxkube/extend` exports it. The declarations are in a file of their own because `rxkube`'s `ReconcileOptions` and
 * `ReconcileEvent` name them (from `rxkube/extend`) and they name `rxkube`'s `ReconcileKeyRequest`.
 */
import type { Observable } from 'rxjs';
import type { ReconcileKeyRequest, ResourceRef } from 'rxkube';

/** One object a run's caches did not show as written when the run started anyway. */
export interface StaleObject {
  /** Its kind. */
  readonly resource: ResourceRef;
  /** Its key: `namespace/name`, or `name`. */
  readonly key: string;
  /** The resourceVersion the write was answered with; `undefined` for a delete answered with a `Status`. */
  readonly resourceVersion: string | undefined;
  /** True when the write was a delete (the cache still showed the object). */
  readonly deleted: boolean;
  /** The resourceVersion the lagging cache had reached (its store's) when the run started. */
  readonly cacheResourceVersion: string;
}

/** A run that started before its caches had caught up, because its wait ran out. */
export interface StaleRead {
  /** How long the key waited for its caches before it ran anyway, ms. */
  readonly waitedMs: number;
  /** What the caches did not show yet. */
  readonly behind: readonly StaleObject[];
}

/**
 * Asked by `reconcile` (its `readiness` option) before each run of a key starts.
 *
 * # Guarantees (the operator's side)
 * - `wait(key)` is called once for each run, when the key is about to start (ready, gate open, a slot free). When
 *   it returns `undefined` the run starts at once; otherwise the run starts when the Observable first emits (not
 *   before), with its value: `undefined` when the condition was met, a `StaleRead` when the hook gave up
 *   waiting (it is then on the `started` event as `staleRead`, and the metrics hook's `staleRead` hears it).
 * - A waiting key holds no concurrency slot; other keys run meanwhile. It is in the queue's depth.
 * - A trigger for a key that waits coalesces into the run it waits for (its reason joins that run's reasons).
 * - `began(request)` is called for every run, right before the reconcile function, with the request it gets.
 * - What the hook throws, and an error of its Observable, are reported (`reportError`) and the run starts.
 *
 * # Caveats
 * - A hook whose Observable never emits holds its key until the stream stops: give up after a bound.
 */
export interface ReconcileReadiness {
  /** `undefined` when a run of `key` may start now; else when it may (emits `undefined`, or the stale read). */
  wait(key: string): Observable<StaleRead | undefined> | undefined;
  /** A run starts with `request`: called right before the reconcile function. */
  began?(request: ReconcileKeyRequest): void;
}
