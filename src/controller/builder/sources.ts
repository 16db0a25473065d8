/**
 * What a controller watches: a resource by reference (with its watch options) or an informer, and the secondary
 * resources whose events map to primary keys. Internal to the builder, but for the two public types.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { OperatorFunction } from 'rxjs';
import type { Informer, InformerEvent, InformerWatchOptions } from '../../informer/index.js';
import { describeWatch, type ResourceRef } from '../../watch/index.js';
import type { KeyMapping } from '../triggers/index.js';

/** A resource to watch: a reference plus its watch options, or an informer the caller already has. */
export type WatchSource<T extends KubernetesObject = KubernetesObject> =
  | ResourceRef
  | {
      /** Which resource. */
      readonly resource: ResourceRef;
      /** Its watch options (namespace, selectors, indexers, …). */
      readonly options?: InformerWatchOptions<T>;
    }
  | Informer<T>;

/** A secondary resource whose events map to primary keys. */
export interface WatchesSpec<S extends KubernetesObject = KubernetesObject> {
  /** The secondary resource. */
  readonly source: WatchSource<S>;
  /** Event to primary keys; any shape `mapKeys` accepts. */
  readonly map: (event: InformerEvent<S>) => KeyMapping;
  /** Filters events before mapping (e.g. a predicate from `controller/predicates`). */
  readonly filter?: OperatorFunction<InformerEvent<S>, InformerEvent<S>>;
}

/** Whether a source is an informer given as it is (else a reference). */
export function isInformer<S extends KubernetesObject>(source: WatchSource<S>): source is Informer<S> {
  return typeof (source as Informer<S>).current === 'function' && 'events$' in source;
}

/** `Pod v1 in default`, `Widget example.com/v1 app=web`, or the role of an informer given as is. */
export function describeSource(source: WatchSource<KubernetesObject>, role: string): string {
  if (isInformer(source)) return `${role} informer`;
  const { resource, options } = 'resource' in source ? source : { resource: source, options: undefined };
  return describeWatch(resource, options);
}
