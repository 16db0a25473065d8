/**
 * The manager's shared informer factory: over its connection, and telling the manager about every informer handed
 * out, so health, metrics and logs cover them all.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { describeWatch } from '../controller/builder/index.js';
import {
  informerFactory,
  type Informer,
  type InformerFactory,
  type InformerFactoryOptions,
  type InformerWatchOptions,
} from '../informer/index.js';
import type { Connection } from '../transport/index.js';
import type { ResourceRef } from '../watch/index.js';

/** An informer the factory handed out, with the name logs and metrics give it. */
export interface TrackedInformer {
  readonly name: string;
  readonly resource: ResourceRef;
  readonly informer: Informer<KubernetesObject>;
}

/**
 * One factory for the whole manager over `connection`, calling `onInformer` once per distinct watch (by name:
 * resource, namespace and selectors) the first time it is handed out.
 *
 * # Caveats
 * - Two watches of one resource that differ only in options the name does not show (metadataOnly, a transform)
 *   share one name; the first is tracked.
 */
export function managerInformers(
  connection: Connection,
  options: InformerFactoryOptions,
  onInformer: (tracked: TrackedInformer) => void,
): InformerFactory {
  const factory = informerFactory(connection, options);
  const named = new Set<string>();
  return {
    for<T extends KubernetesObject = KubernetesObject>(
      resource: ResourceRef,
      watchOptions?: InformerWatchOptions<T>,
    ): Informer<T> {
      const informer = factory.for<T>(resource, watchOptions);
      const name = describeWatch(resource, watchOptions);
      if (!named.has(name)) {
        named.add(name);
        onInformer({ name, resource, informer: informer as unknown as Informer<KubernetesObject> });
      }
      return informer;
    },
    get active() {
      return factory.active;
    },
    resolve: factory.resolve,
  };
}
