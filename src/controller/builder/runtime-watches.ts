/**
 * The watches a controller adds and removes while it runs (`watches$`). Internal to the builder.
 */
import { isObservable, Observable, type Subscription } from 'rxjs';
import { describeValue } from '../../error-messages/index.js';
import type { ReconcileTrigger } from '../reconcile/index.js';
import type { ReadSource } from '../own-writes/index.js';
import type { WatchesSpec } from './sources.js';

/** One watch started: its triggers (and whatever it reports), and the cache read-your-own-writes reads it from. */
export interface AttachedWatch {
  readonly triggers$: Observable<ReconcileTrigger>;
  readonly read: ReadSource | undefined;
}

/** Throws a `TypeError` unless `watches$` is undefined or an Observable. */
export function checkRuntimeWatches(watches$: unknown): void {
  if (watches$ !== undefined && !isObservable(watches$)) {
    throw new TypeError(
      `controller: watches$ must be an Observable of WatchesSpec arrays, got ${describeValue(watches$)}`,
    );
  }
}

/**
 * The triggers of the watches `watches$` asks for, as it asks: each value is the whole set wanted from then on.
 *
 * # Guarantees
 * - A spec (compared by identity) that appears is started with `attach` (its informer subscribed: the shared one of
 *   its kind and options, started if no one else runs it); one that disappears is stopped (unsubscribed: its
 *   triggers stop at once, and its informer's watch request is aborted when nobody else uses it). New specs are
 *   started before gone ones are stopped, so a shared informer kept by a replacement spec is not restarted.
 * - Its cache joins `reads` while it runs, and leaves it when it stops.
 * - A spec that `attach` refuses (a bad source, no `map`) is reported to `report` once and left out while it stays
 *   in the set; the others run.
 *   A value that is not an array is reported and changes nothing.
 * - Completes when `watches$` has completed and no watch is left (each completes with its informer); errors when
 *   `watches$` or a watch's informer errors. Unsubscribing stops every watch.
 */
export function runtimeWatches(
  watches$: Observable<readonly WatchesSpec[]>,
  attach: (spec: WatchesSpec) => AttachedWatch,
  reads: Set<ReadSource>,
  report: (error: Error) => void,
): Observable<ReconcileTrigger> {
  return new Observable<ReconcileTrigger>((subscriber) => {
    const active = new Map<WatchesSpec, { subscription: Subscription | undefined; read: ReadSource | undefined }>();
    /** Specs `attach` refused: reported once, tried again only after they left the set. */
    const refused = new Set<unknown>();
    let done = false;
    const stop = (spec: WatchesSpec): void => {
      const watch = active.get(spec);
      if (watch === undefined) return;
      active.delete(spec);
      if (watch.read !== undefined) reads.delete(watch.read);
      watch.subscription?.unsubscribe();
    };
    const maybeComplete = (): void => {
      if (done && active.size === 0) subscriber.complete();
    };
    const start = (spec: WatchesSpec): void => {
      let attached: AttachedWatch;
      try {
        if (spec === null || typeof spec !== 'object' || typeof spec.map !== 'function' || spec.source === undefined) {
          throw new TypeError(`controller: each spec of watches$ must be { source, map }, got ${describeValue(spec)}`);
        }
        attached = attach(spec);
      } catch (error) {
        refused.add(spec);
        report(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const watch = { subscription: undefined as Subscription | undefined, read: attached.read };
      active.set(spec, watch);
      if (watch.read !== undefined) reads.add(watch.read);
      const subscription = attached.triggers$.subscribe({
        next: (trigger) => subscriber.next(trigger),
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          if (active.get(spec) !== watch) return;
          stop(spec);
          maybeComplete();
        },
      });
      if (active.get(spec) === watch) watch.subscription = subscription;
      else subscription.unsubscribe();
    };
    const subscription = watches$.subscribe({
      next: (specs) => {
        if (!Array.isArray(specs)) {
          report(
            new TypeError(
              `controller: watches$ must emit arrays of WatchesSpec, got ${describeValue(specs)}; the watches stay as they were`,
            ),
          );
          return;
        }
        const wanted = new Set(specs);
        for (const spec of wanted) if (!active.has(spec) && !refused.has(spec)) start(spec);
        for (const spec of [...active.keys()]) if (!wanted.has(spec)) stop(spec);
        for (const spec of [...refused]) if (!wanted.has(spec as WatchesSpec)) refused.delete(spec);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        done = true;
        maybeComplete();
      },
    });
    return () => {
      subscription.unsubscribe();
      for (const spec of [...active.keys()]) stop(spec);
    };
  });
}
