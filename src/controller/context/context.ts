/**
 * `controllerContext`: what every host builds its controllers' contexts with, so that the gate, the shutdown and the
 * clients work the same under the manager, alone and in tests.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { combineLatest, distinctUntilChanged, map, merge, type Observable } from 'rxjs';
import type { KeyGate } from '../reconcile/index.js';
import { resourceClient } from '../../client/index.js';
import type { ResourceRef } from '../../watch/index.js';
import { bothMetrics, checkMetrics } from '../reconcile/index.js';
import type { ReconcileMetrics } from '../reconcile/index.js';
import type { Lookup, ReconcileOptions } from '../reconcile/index.js';
import { reconcile } from '../reconcile/index.js';
import type { ReconcileFn } from '../reconcile/index.js';
import { ownWriteLedger } from '../own-writes/index.js';
import type { ContextReconcile, ControllerContext } from './types.js';
import type { ResourceClient } from '../../client/index.js';

/** What a host knows; {@link controllerContext} adds `reconcile`, `client()` and `writes`. */
export type ContextHost = Omit<ControllerContext, 'reconcile' | 'client' | 'writes'> & {
  /** The host's metrics hook (the manager's workqueue metrics and run logs), given to every operator built. */
  readonly metrics?: ReconcileMetrics;
};

/**
 * The context of one controller of `host`.
 *
 * # Guarantees
 * - `reconcile` applies the host's `gate` (AND the options' own), the key gate of its `shards` (AND the options' own), its `stop$` (OR the options' own), and defaults
 *   `scheduler` and `drainTimeout` to the host's; the host's `metrics` hook hears every operator built, before the
 *   options' own `metrics` (both hear everything). Its options may be left out, as `reconcile`'s may.
 * - `client()` passes the host's `scheduler`, `random` and `onWarning` unless `options` name others, and tells
 *   `writes` (a ledger of the context's own, on the host's scheduler) about every write unless `options` name
 *   another `writeObserver`.
 */
export function controllerContext(host: ContextHost): ControllerContext {
  const { metrics, ...context } = host;
  const wrapped = <T>(fn: ReconcileFn<T>, options: ReconcileOptions & { readonly lookup?: Lookup<T> } = {}) => {
    checkMetrics(options.metrics); // before it is combined with the host's, which would hide a bad one
    return reconcile<T>(fn, {
      ...options,
      lookup: options.lookup as Lookup<T>,
      gate: options.gate === undefined ? host.gate : both(host.gate, options.gate),
      keyGate: bothKeyGates(host.shards?.keyGate, options.keyGate),
      stop$: options.stop$ === undefined ? host.stop$ : merge(host.stop$, options.stop$),
      scheduler: options.scheduler ?? host.scheduler,
      drainTimeout: options.drainTimeout ?? host.drainTimeout,
      metrics: bothMetrics(metrics, options.metrics),
    });
  };
  const writes = ownWriteLedger({ scheduler: host.scheduler });
  return {
    ...context,
    reconcile: wrapped as ContextReconcile,
    client: <T extends KubernetesObject>(resource: ResourceRef, options: ResourceClient.Options = {}) =>
      resourceClient<T>(host.connection, resource, {
        scheduler: host.scheduler,
        random: host.random,
        onWarning: host.onWarning,
        writeObserver: writes,
        ...options,
      }),
    writes,
  };
}

/** Open for a key while both are; either alone when the other is missing. */
function bothKeyGates(a: KeyGate | undefined, b: KeyGate | undefined): KeyGate | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { isOpen: (key) => a.isOpen(key) && b.isOpen(key), changed$: merge(a.changed$, b.changed$) };
}

/** Open while both are open; closed until both have said. */
function both(a: Observable<boolean>, b: Observable<boolean>): Observable<boolean> {
  return combineLatest([a, b]).pipe(
    map(([x, y]) => x === true && y === true),
    distinctUntilChanged(),
  );
}
