/**
 * Where an informer factory gets its deltas. `rxkube/extend` exports it, for sources other than `listWatch`; it is in
 * a file of its own because `rxkube`'s `InformerFactoryOptions` names it (from `rxkube/extend`).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { ResourceRef } from 'rxkube';
import type { ListWatchOptions, WatchEvent } from 'rxkube/extend';

/**
 * Where a factory gets its deltas; `listWatch` by default (read in batches), a scripted stream in tests. It may emit
 * single deltas or arrays of deltas that arrived together (each array is applied as one batch, see
 * `informerFromSource`).
 */
export type DeltaSource = <T extends KubernetesObject>(
  resource: ResourceRef,
  options: ListWatchOptions<T>,
) => Observable<WatchEvent<T> | readonly WatchEvent<T>[]>;
