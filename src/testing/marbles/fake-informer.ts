/**
 * `fakeInformer`: a real informer (the same `informerFromSource` every informer is built on) fed by a script
 * instead of a reflector.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { concat, from, NEVER, type Observable } from 'rxjs';
import { informerFromSource } from '../../informer/index.js';
import { watchEvent, watchMarbles, type MarbleDelta, type MarbleHelpers } from './watch-events.js';
import type { Informer, InformerEvent, InformerOptions } from 'rxkube';
import type { WatchEvent } from 'rxkube/extend';

/**
 * An informer over a scripted stream of deltas: either a list of objects (listed and synced at once, then a watch
 * that stays open with nothing happening), or a watch marble (see {@link watchMarbles}).
 *
 * # Guarantees
 * - It is a real `Informer`: the store, `events$`, `synced$`, late-subscriber replay, `resync` and problems
 *   all behave exactly as for an informer on a live watch, because it is `informerFromSource` over the script.
 * - From objects: on subscription it emits `relistStarted`, the objects, `relistDone` and a `watching` status,
 *   synchronously, so it is synced before the subscriber's next line runs; the script never completes.
 * - From a marble: the script starts (at the marble's frame 0) when the informer's first subscriber arrives, and
 *   again from the start after the last subscriber left and a new one came, as a real watch would relist.
 *
 * # Caveats
 * - A marble that never relists leaves the informer unsynced: start it with `watchEvent.relist([...])` for a
 *   controller gated on `synced$`.
 * - The marble overload needs `TestScheduler.run()`'s helpers; the objects overload works anywhere.
 */
export function fakeInformer<T extends KubernetesObject>(
  objects: readonly T[],
  options?: InformerOptions<T>,
): Informer<T>;
export function fakeInformer<T extends KubernetesObject>(
  helpers: MarbleHelpers,
  marble: string,
  values?: Readonly<Record<string, MarbleDelta<T>>>,
  options?: InformerOptions<T>,
): Informer<T>;
export function fakeInformer<T extends KubernetesObject>(
  first: readonly T[] | MarbleHelpers,
  second?: string | InformerOptions<T>,
  values?: Readonly<Record<string, MarbleDelta<T>>>,
  options?: InformerOptions<T>,
): Informer<T> {
  if (Array.isArray(first)) {
    const objects = first as readonly T[];
    const relist = watchEvent.relist(objects);
    const done = relist.at(-1) as { readonly resourceVersion: string };
    const listed: WatchEvent<T>[] = [...relist, watchEvent.watching<T>(done.resourceVersion)];
    return informerFromSource<T>(concat(from(listed), NEVER), (second as InformerOptions<T> | undefined) ?? {});
  }
  if (typeof second !== 'string')
    throw new TypeError('fakeInformer: give a list of objects, or the run helpers and a marble');
  return informerFromSource<T>(watchMarbles<T>(first as MarbleHelpers, second, values ?? {}), options ?? {});
}

/**
 * The informer events (`added`, `updated`, `deleted`, `resync`) a watch marble produces: the `events$` of a
 * `fakeInformer` over it, so each event carries the snapshot it made, exactly as a live informer's would.
 *
 * # Guarantees
 * - Same rules as `fakeInformer`'s marble overload; `relist` deltas produce the `added`/`updated`/tombstone
 *   `deleted` events the store derives from an atomic relist.
 *
 * # Caveats
 * - Status and problem deltas produce no informer event (they go to `status$` and `problems$`).
 */
export function informerEventMarbles<T extends KubernetesObject>(
  helpers: MarbleHelpers,
  marble: string,
  values?: Readonly<Record<string, MarbleDelta<T>>>,
  options?: InformerOptions<T>,
): Observable<InformerEvent<T>> {
  return fakeInformer<T>(helpers, marble, values, options).events$;
}
