/**
 * `diffSnapshots`: a stream of store snapshots to a stream of what changed between consecutive ones.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type OperatorFunction } from 'rxjs';
import { Store, diffStores } from '../store/index.js';
import type { SnapshotDiff } from './types.js';

const EMPTY: Store<KubernetesObject> = Store.empty();

/**
 * Pairs each snapshot with the changes since the snapshot before it: `informer.store$.pipe(diffSnapshots())`.
 *
 * # Guarantees
 * - One emission per snapshot, in order, synchronously; the first snapshot is compared with an empty store, so its
 *   changes are every key as `added`.
 * - The cost of an emission is proportional to what changed between the two snapshots (see `diffStores`), not to
 *   their size; so after `sampleTime` or `auditTime`, a sample costs what changed since the previous sample.
 * - Errors and completion of the source pass through.
 *
 * # Caveats
 * - Changes are in the hash order of their keys, and a key changed several times between two snapshots appears
 *   once, with its state in each.
 */
export function diffSnapshots<T extends KubernetesObject = KubernetesObject>(): OperatorFunction<
  Store<T>,
  SnapshotDiff<T>
> {
  return (source) =>
    new Observable<SnapshotDiff<T>>((subscriber) => {
      let previous: Store<T> | undefined;
      return source.subscribe({
        next: (snapshot) => {
          const changes = diffStores(previous ?? (EMPTY as unknown as Store<T>), snapshot);
          const diff: SnapshotDiff<T> = { snapshot, previous, changes };
          previous = snapshot;
          subscriber.next(diff);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
