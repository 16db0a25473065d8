/**
 * Any informer event to any reconcile keys.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { OperatorFunction } from 'rxjs';
import type { InformerEvent } from '../../informer/index.js';
import type { ReconcileTrigger } from '../reconcile/index.js';
import { keyMapper } from './key-mapper.js';
import type { KeyMapping, TriggerOptions } from './types.js';

/**
 * Maps each informer event to reconcile triggers with `fn`: the `watches(…, EnqueueRequestsFromMapFunc)` of
 * controller-runtime, for relations that are not ownership (a ConfigMap to the Deployments that mount it, a Node to
 * the Pods on it).
 *
 * `fn` returns a key, a `{ key, reason? }` trigger, any iterable of those, or `undefined`/`null` for none.
 *
 * # Guarantees
 * - Triggers are emitted synchronously, in the order `fn` returned them, event after event.
 * - A bare key, or a trigger without `reason`, gets the event's reason (for example `updated ConfigMap
 *   default/cfg`), so a run's reasons say which event caused it.
 * - Bad output never errors the stream and is never dropped silently: when `fn` throws, returns an empty key, a
 *   non-string key, a non-string reason or a value of another type, a {@link KeyMappingError} goes to
 *   `options.onError` (default: `reportError`), and the valid triggers of that event are still emitted.
 *
 * # Caveats
 * - No deduplication: the `reconcile` operator coalesces repeated keys anyway.
 * - `fn` runs on every event, tombstones included (`deleted` with `stateUnknown: true`, where `object` is only the
 *   last known state).
 * - Keys are not checked against a format: `fn` decides what a key means to the reconcile function.
 */
export function mapKeys<T extends KubernetesObject = KubernetesObject>(
  fn: (event: InformerEvent<T>) => KeyMapping,
  options: TriggerOptions = {},
): OperatorFunction<InformerEvent<T>, ReconcileTrigger> {
  if (typeof fn !== 'function') throw new TypeError('mapKeys: fn must be a function (event) => keys');
  return keyMapper<T>((event) => fn(event), options.onError);
}
