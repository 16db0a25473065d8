/**
 * `informer`: a cached, shared view of one resource, fed by the reflector (`listWatch`).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Connection } from '../transport/index.js';
import { checkWatchOptions, listWatchBatches, type ResourceRef } from '../watch/index.js';
import { healthClaimsFor, registerHealthClaims } from './health.js';
import { buildInformer } from './informer-from-source.js';
import type { Informer, InformerOptions } from './types.js';
import type { ListWatchOptions } from 'rxkube/extend';

/** Everything `informer()` accepts: the watch's options (namespace, selectors, metadataOnly…) and the informer's. */
export type InformerWatchOptions<T extends KubernetesObject = KubernetesObject> = ListWatchOptions<T> &
  InformerOptions<T>;

/**
 * An informer for `resource`, watching through `connection`: a client-node `KubeConfig` (auth, TLS and proxies come from
 * client-node) or any `Transport`, such as a virtual cluster.
 *
 * # Guarantees
 * - Those of {@link Informer}: cold, ref-counted, in-order events after the store applied them, late-subscriber
 *   replay, `current()` as the Lister.
 * - The same `scheduler` drives the watch's backoff and timeouts and the informer's resync, so the whole informer
 *   runs in virtual time under `TestScheduler.run()`.
 * - Never silent: while it runs, its health news goes to `onHealth` (see `ListWatchOptions.onHealth`): each
 *   distinct cause of failure once, on the first failure that shows it, then its recovery. By default that is a
 *   process warning on stderr (`KubernetesWatchHealth`), or the connection's own handler (a virtual cluster collects
 *   them for its test). A `controller()` that routes health to its `onError` takes it over while it runs, so each
 *   cause is said once.
 * - A failure no retry can fix (a 400 or 422 from the server, see `TERMINAL_CODES`) ends it: `status$` says `failed`,
 *   then every stream errors with the `ListWatchError`. Other failures are retried for as long as it runs.
 * - Bad options throw here, not at the first subscription: selector text the server would refuse (a `RangeError`
 *   naming the selector and the character where it goes wrong), an `onHealth`, `onWarning` or `transform` that is
 *   not a function.
 *
 * # Caveats
 * - Each call creates an independent watch; use `informerFactory` to share one per resource and selectors.
 */
export function informer<T extends KubernetesObject = KubernetesObject>(
  connection: Connection,
  resource: ResourceRef,
  options: InformerWatchOptions<T> = {},
): Informer<T> {
  checkWatchOptions('informer', options);
  const health = healthClaimsFor(options, connection);
  const result = buildInformer(
    listWatchBatches<T>(connection, resource, { ...options, onHealth: health.handler }),
    options,
  );
  registerHealthClaims(result, health);
  return result;
}
