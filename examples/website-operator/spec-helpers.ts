/**
 * The website operator's planted bug, a spec fixture (the operator itself never uses it): the intermediate-states
 * class of Sieve (OSDI '22), a finalizer removed before its cleanup is durable. And a record store in the cluster,
 * so that a simulation's checks (and a crash) meet the records too.
 * @module
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { catchError, defer, map, of, switchMap, throwError, type Observable, type SchedulerLike } from 'rxjs';
import { apiErrors, type ResourceClient } from '../../src/index.js';
import type { DnsRecord, RecordChange, RecordStore } from './records.js';

/** How long the planted bug's removals wait in their batch, virtual ms. */
export const REMOVAL_BATCH_MS = 1_000;

/**
 * The planted bug: a record store whose removals are acknowledged once queued and sent `batchMs` later, as a DNS
 * client that batches its changes does. The operator's cleanup returns at once, so the finalizer comes off before
 * the removal is durable: a crash in between (the process and its batch gone, the Website too) leaves the record
 * behind for good. The operator's marble specs pass with it (`website-operator.marbles.spec.ts` runs them against
 * it): nothing crashes there.
 */
export function batchedRemovals(
  records: RecordStore,
  scheduler: SchedulerLike,
  batchMs = REMOVAL_BATCH_MS,
): RecordStore {
  return {
    where: (namespace, name) => records.where(namespace, name),
    put: (record) => records.put(record),
    remove: (namespace, name) =>
      defer(() => {
        // The bug's own flaw: what happens to a queued change is nobody's business once it is acknowledged.
        scheduler.schedule(() => records.remove(namespace, name).subscribe({ error: () => undefined }), batchMs);
        return of(true);
      }),
  };
}

/**
 * Records as ConfigMaps `<namespace>.<name>` (holding the record's JSON under `record`) written through `client`,
 * a client of the namespace that holds them: outside the Websites' own namespace, so the operator does not watch
 * them, and in the cluster, so they outlive a crash of the operator as a DNS provider's records do.
 */
export function clusterRecords(client: ResourceClient<V1ConfigMap>): RecordStore {
  const nameOf = (namespace: string, name: string): string => `${namespace}.${name}`;
  return {
    where: (namespace, name) => `configmap ${nameOf(namespace, name)}`,
    put: (record: DnsRecord): Observable<RecordChange> => {
      const name = nameOf(record.website.namespace, record.website.name);
      const text = JSON.stringify(record);
      return client.get(name).pipe(
        catchError((error: unknown) => (apiErrors.isNotFound(error) ? of(undefined) : throwError(() => error))),
        switchMap((existing): Observable<RecordChange> => {
          if (existing?.data?.['record'] === text) return of('unchanged');
          if (existing === undefined)
            return client
              .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { record: text } })
              .pipe(map(() => 'created'));
          return client.patch(name, { type: 'merge', body: { data: { record: text } } }).pipe(map(() => 'updated'));
        }),
      );
    },
    remove: (namespace, name) =>
      client.delete(nameOf(namespace, name)).pipe(
        map(() => true),
        catchError((error: unknown) => (apiErrors.isNotFound(error) ? of(false) : throwError(() => error))),
      ),
  };
}
