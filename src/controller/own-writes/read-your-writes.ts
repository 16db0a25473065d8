/**
 * `readYourWrites`: the `readiness` hook that makes the next run of a key wait until the caches it reads show what
 * its last runs wrote (client-go's KEP-5647 `ConsistencyStore`, java-operator-sdk's read-cache-after-write).
 */
import { merge, Observable } from 'rxjs';
import { parseLabelSelector, matchesLabels, type LabelSelector } from '../../selectors/index.js';
import type { ReconcileReadiness, StaleObject, StaleRead } from 'rxkube/extend';
import { cacheShows } from './cache-shows.js';
import { kindOf, type OwnWrites } from './ledger.js';
import type { OwnWrite, ReadSource, ReadYourWritesOptions } from './types.js';

const NONE: readonly OwnWrite[] = Object.freeze([]);

/** Default `maxWait`: 5 s, far above a healthy watch's delay (milliseconds), short enough for a broken one. */
export const DEFAULT_READ_YOUR_WRITES_WAIT_MS = 5_000;

/**
 * The `readiness` hook (give it as `reconcile`'s `readiness` option) with which a run of a key starts only once the
 * caches in `reads` show what the key's last runs wrote, the object is gone, or `maxWait` passes.
 *
 * What a run of key `K` waits for, exactly:
 * - every write charged to `K` (sent with the `signal` of a run of `K`, through a client that tells `writes`)
 *   since `K`'s last run started, in every cache of `reads` that can hold the object: same kind, the object's
 *   namespace (or every one), a label selector that selects the object as answered;
 * - with `options.primary`, the last write to the object `K` itself (of the primary kind), whoever sent it.
 *
 * A cache shows a write as `cacheShows` (in `rxkube/extend`) says. When `maxWait` passes first, the run starts anyway with a
 * `StaleRead` naming what the caches did not show (on its `started` event, and to the metrics hook).
 *
 * ```ts
 * const podSets = context.informers.for<PodSet>(PODSET);
 * const pods = context.informers.for<V1Pod>(POD);
 * const readiness = ownWrites.readYourWrites(context.writes, [{ resource: PODSET, informer: podSets }, { resource: POD, informer: pods }], {
 *   primary: PODSET,
 * });
 * triggers$.pipe(context.reconcile(sync, { lookup: podSets, readiness }));
 * ```
 *
 * # Guarantees
 * - A run never starts on a cache of `reads` older than a write its key is waiting for, unless `maxWait` passed,
 *   and then its `started` event says so (`staleRead`).
 * - A key that waits holds no concurrency slot; nothing waits when nothing was written.
 * - `reads` is read at each check: a `Set` the caller changes (as `controller()` does for watches added at run
 *   time) takes effect at the next run.
 * - Waiting costs nothing per event: a waiting key subscribes to the `store$` of the caches it waits for, and only
 *   while it waits.
 * - The wait ends one scheduler action after the cache change that ends it, so that the events of that change (an
 *   informer publishes its snapshot first) reach the operator first and coalesce into the waiting run.
 *
 * # Caveats
 * - A write is charged to its run's key only when it was sent with the run's `signal`; without it, only the primary
 *   object's own writes are waited for.
 * - A cache with a field selector is assumed to hold every object of its namespace: a write it will never show is
 *   waited for until its store moves past it (a later event or bookmark), or `maxWait`.
 * - Writes are remembered for the ledger's `retain` (60 s): a run that starts later does not wait for them.
 */
export function readYourWrites(
  writes: OwnWrites,
  reads: Iterable<ReadSource>,
  options: ReadYourWritesOptions = {},
): ReconcileReadiness {
  const maxWait = options.maxWait ?? DEFAULT_READ_YOUR_WRITES_WAIT_MS;
  if (typeof maxWait !== 'number' || Number.isNaN(maxWait) || maxWait < 0) {
    throw new RangeError(
      `readYourWrites: maxWait must be a number of ms >= 0 (Infinity: no bound), got ${String(maxWait)}`,
    );
  }
  const scheduler = options.scheduler ?? writes.scheduler;
  const primary = options.primary;
  const selectors = new WeakMap<ReadSource, LabelSelector | null>();

  const selects = (source: ReadSource, write: OwnWrite): boolean => {
    if (source.labelSelector === undefined || source.labelSelector === '' || write.labels === undefined) return true;
    let selector = selectors.get(source);
    if (selector === undefined) {
      try {
        selector = parseLabelSelector(source.labelSelector);
      } catch {
        selector = null; // the informer refused it when it was built; assume it can hold anything
      }
      selectors.set(source, selector);
    }
    return selector === null || matchesLabels(selector, write.labels);
  };
  const holders = (write: OwnWrite): ReadSource[] => {
    const kind = kindOf(write.resource);
    const found: ReadSource[] = [];
    for (const source of reads) {
      if (kindOf(source.resource) !== kind) continue;
      if (source.namespace !== undefined && source.namespace !== '' && source.namespace !== write.namespace) continue;
      if (selects(source, write)) found.push(source);
    }
    return found;
  };
  /** The writes a run of `key` waits for: the last one per object; `undefined` when there are none (the hot path). */
  const targets = (key: string): OwnWrite[] | undefined => {
    const charged = writes.chargedTo(key);
    const own = primary === undefined ? NONE : writes.writesTo(primary, key);
    if (charged.length === 0 && own.length === 0) return undefined;
    const latest = new Map<string, OwnWrite>();
    for (const write of charged) latest.set(`${kindOf(write.resource)} ${write.key}`, write);
    const last = own[own.length - 1];
    if (last !== undefined) {
      const id = `${kindOf(primary!)} ${key}`;
      if ((latest.get(id)?.seq ?? 0) < last.seq) latest.set(id, last);
    }
    return [...latest.values()];
  };
  type Lag = readonly [OwnWrite, ReadSource];
  const lagging = (candidates: readonly OwnWrite[]): Lag[] => {
    const behind: Lag[] = [];
    for (const write of candidates)
      for (const source of holders(write)) if (!cacheShows(source, write)) behind.push([write, source]);
    return behind;
  };
  const staleOf = (behind: readonly Lag[], waitedMs: number): StaleRead => ({
    waitedMs,
    behind: behind.map(
      ([write, source]): StaleObject => ({
        resource: write.resource,
        key: write.key,
        resourceVersion: write.resourceVersion,
        deleted: write.deleted,
        cacheResourceVersion: source.informer.current().resourceVersion,
      }),
    ),
  });

  return {
    wait(key) {
      const candidates = targets(key);
      if (candidates === undefined) return undefined;
      let behind = lagging(candidates);
      if (behind.length === 0) return undefined;
      return new Observable<StaleRead | undefined>((subscriber) => {
        const since = scheduler.now();
        const caches = [...new Set(behind.map(([, source]) => source.informer))];
        let caughtUp = false;
        const subscription = merge(...caches.map((cache) => cache.store$)).subscribe(() => {
          if (caughtUp) return;
          behind = behind.filter(([write, source]) => !cacheShows(source, write));
          if (behind.length > 0) return;
          caughtUp = true;
          // An informer publishes a snapshot before its events: one action later, the events of the change that
          // caught the cache up have reached the operator and coalesced into the waiting run, instead of asking for
          // another run right after it.
          subscription.add(
            scheduler.schedule(() => {
              subscriber.next(undefined);
              subscriber.complete();
            }),
          );
        });
        if (maxWait !== Number.POSITIVE_INFINITY) {
          subscription.add(
            scheduler.schedule(() => {
              subscriber.next(staleOf(behind, scheduler.now() - since));
              subscriber.complete();
            }, maxWait),
          );
        }
        return subscription;
      });
    },
    began(request) {
      writes.discharge(request.key);
      writes.charge(request.signal, request.key);
    },
  };
}
