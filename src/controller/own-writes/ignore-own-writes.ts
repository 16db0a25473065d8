/**
 * `ignoreOwnWrites`: drops the informer events that only echo a write of the controller itself, so that a write does
 * not trigger the run that would find nothing to do.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import type { InformerEvent } from '../../informer/index.js';
import type { ResourceRef } from '../../resources/index.js';
import { echoOf } from './echo.js';
import type { OwnWrites } from './ledger.js';

/**
 * Drops the events of an informer of `resource` that only echo a write of the controller whose ledger is `writes`
 * (exactly which: `echoOf` in `rxkube/extend`), and passes every other event, in order.
 *
 * ```ts
 * const events$ = configs.events$.pipe(ownWrites.ignore(context.writes, CONFIG_MAP), toKeys());
 * ```
 *
 * # Guarantees
 * - Nothing but an exact echo is dropped: an event that also carries someone else's change (or may: a write that
 *   was not conditioned on a resourceVersion, an `apply` or a merge patch without one) passes, as do deletes and
 *   resyncs.
 * - Only writes answered after subscription count: a late subscriber's replay of the cache, and everything else it
 *   sees, is news to it.
 * - An event of an object that a write of the ledger is writing is held until that write settles (kube-apiserver,
 *   and the virtual cluster, may deliver a write's event before its answer); the events of one object keep their
 *   order. Other objects' events pass at once.
 * - When the source completes, held events are decided and passed, then the output completes.
 *
 * # Caveats
 * - A write's echo is recognised only while the ledger remembers the write (its `retain`, 60 s by default).
 * - A run that writes an object and, in the same run, derives something from caches that did not show that write
 *   yet (a status computed from children it just created) relies on the echo to run again: filter only the events
 *   of objects whose writes are a run's last word on them (the `controller()` default: the primary's own).
 */
export function ignoreOwnWrites<T extends KubernetesObject>(
  writes: OwnWrites,
  resource: ResourceRef,
): MonoTypeOperatorFunction<InformerEvent<T>> {
  return (source) =>
    new Observable<InformerEvent<T>>((subscriber) => {
      const since = writes.sequence;
      const held = new Map<string, InformerEvent<T>[]>();
      const pass = (event: InformerEvent<T>): void => {
        if (echoOf(writes, resource, event, since) === undefined) subscriber.next(event);
      };
      const busy = (event: InformerEvent<T>): boolean =>
        writes.inFlight(resource, event.key, event.object.metadata?.namespace, event.object.metadata?.name);
      const flush = (all: boolean): void => {
        const ready: InformerEvent<T>[][] = [];
        for (const [key, events] of held) {
          if (!all && busy(events[0]!)) continue;
          held.delete(key);
          ready.push(events);
        }
        for (const events of ready) for (const event of events) pass(event);
      };
      const stopListening = writes.onSettled(() => {
        if (held.size > 0) flush(false);
      });
      const subscription = source.subscribe({
        next: (event) => {
          const queue = held.get(event.key);
          if (queue !== undefined) queue.push(event);
          else if ((event.type === 'added' || event.type === 'updated') && busy(event)) held.set(event.key, [event]);
          else pass(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          flush(true);
          subscriber.complete();
        },
      });
      return () => {
        stopListening();
        subscription.unsubscribe();
      };
    });
}
