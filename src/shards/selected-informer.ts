/**
 * The primary informer of a sharded controller with server-side selection: it lists and watches only the hash ranges
 * this replica holds (KEP-5866's `shardSelector`), and lists again whenever that set changes.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { distinctUntilChanged, NEVER, Observable, of, concat, switchMap } from 'rxjs';
import type { Informer, InformerWatchOptions, ResourceRef, sharding } from 'rxkube';
import type { WatchEvent } from '../watch/index.js';
import type { Connection } from 'rxkube';
import { buildInformer } from '../informer/index.js';
import { listWatchBatches } from '../watch/index.js';

/**
 * An informer of `resource` that watches only `ranges$`'s latest ranges of `bounds`, and says which ranges it has
 * listed through `onListed`.
 *
 * # Guarantees
 * - Each new set of ranges restarts the list and watch with a `shardSelector` of exactly those ranges; the store
 *   swaps atomically when that list is done: objects of ranges given up leave as `deleted` (`stateUnknown`), those of
 *   new ranges arrive as `added`. Until then the store keeps what it had.
 * - `onListed(ranges)` is called right after the store applied the list of exactly `ranges` (so a range is never
 *   said listed before its objects are in the store); with no range, the store is emptied at once and `[]` listed.
 * - Where the server does not serve `shardSelector`, the reflector filters by the same hash (the informer's
 *   `shard` option), so the store holds the same objects either way.
 *
 * # Caveats
 * - Every change of the set lists every range held again, not only the new one: rare (joins, leaves), and simple.
 * - The informer is built here, not by the manager's factory: it has no reflector metrics and no `/readyz` line of
 *   its own; the controller's gate waits for its `synced$` as for any primary.
 */
export function rangeSelectedInformer<T extends KubernetesObject>(
  connection: Connection,
  resource: ResourceRef,
  options: InformerWatchOptions<T>,
  bounds: readonly sharding.ShardRange[],
  ranges$: Observable<readonly number[]>,
  onListed: (ranges: readonly number[]) => void,
): Informer<T> {
  const source$ = ranges$.pipe(
    distinctUntilChanged((a, b) => a.join(',') === b.join(',')),
    switchMap((ranges) => {
      if (ranges.length === 0) {
        const empty: readonly WatchEvent<T>[] = [
          { type: 'relistStarted' },
          { type: 'relistDone', resourceVersion: '' },
        ];
        return concat(
          afterEach(of(empty), () => onListed([])),
          NEVER,
        );
      }
      const selected = listWatchBatches<T>(connection, resource, {
        ...options,
        shard: ranges.map((range) => bounds[range]!),
      });
      return afterEach(selected, (batch) => {
        if (batch.some((event) => event.type === 'relistDone')) onListed(ranges);
      });
    }),
  );
  const { scheduler, resyncPeriod, indexers } = options;
  return buildInformer<T>(source$, {
    ...(scheduler === undefined ? {} : { scheduler }),
    ...(resyncPeriod === undefined ? {} : { resyncPeriod }),
    ...(indexers === undefined ? {} : { indexers }),
  });
}

/** `source$`, calling `after(value)` once its subscriber has handled each value (the informer applies it synchronously). */
function afterEach<V>(source$: Observable<V>, after: (value: V) => void): Observable<V> {
  return new Observable<V>((subscriber) =>
    source$.subscribe({
      next: (value) => {
        subscriber.next(value);
        after(value);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}
