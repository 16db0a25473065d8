/**
 * The Website reconciler: controller-runtime's `Reconcile(ctx, req)` for one Website key, as a reconcile function
 * (a request in, an Observable of the result out) wrapped in `finalizer()`.
 * @module
 */
import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import {
  catchError,
  concat,
  concatMap,
  defer,
  EMPTY,
  ignoreElements,
  map,
  tap,
  throwError,
  type Observable,
} from 'rxjs';
import { finalizer, type ReconcileRequest, type RequeueAfter, type ResourceClient } from '../../src/index.js';
import { messageOf } from '../shared/health.js';
import { degradedCondition, rolloutConditions } from './conditions.js';
import { defaultsConfigMapOf, resolveWebsite, type ResolvedWebsite } from './defaults.js';
import { desiredObjects, serviceUrl } from './desired.js';
import { REASONS, type WebsiteEvents } from './events.js';
import { BLOCKED_RECHECK_MS, type WebsiteSettings } from './options.js';
import { applyOwned, foreignController, newMemory, type OwnedKind, type WebsiteMemory } from './owned.js';
import type { DnsRecord } from './records.js';
import { rolloutOf } from './rollout.js';
import { writeStatus, type StatusContext } from './status.js';
import {
  CONFIG_MAP,
  DEPLOYMENT,
  invalidNameReason,
  ownedNames,
  RECORD_FINALIZER,
  SERVICE,
  websiteId,
  type Website,
  type WebsiteId,
} from './website.js';

/** The write path of each kind. */
export interface WebsiteClients {
  readonly websites: ResourceClient<Website>;
  readonly deployments: ResourceClient<V1Deployment>;
  readonly services: ResourceClient<V1Service>;
  readonly configMaps: ResourceClient<V1ConfigMap>;
}

/** The caches (informers) of each kind: what a run reads instead of asking the API server. */
export interface WebsiteCaches {
  readonly websites: ResourceClient.StoreSource<Website>;
  readonly deployments: ResourceClient.StoreSource<V1Deployment>;
  readonly services: ResourceClient.StoreSource<V1Service>;
  readonly configMaps: ResourceClient.StoreSource<V1ConfigMap>;
}

/** What the reconciler is built from. */
export interface ReconcilerParts {
  readonly settings: Pick<WebsiteSettings, 'records' | 'domain' | 'resyncPeriodMs'>;
  readonly clients: WebsiteClients;
  readonly caches: WebsiteCaches;
  readonly events: WebsiteEvents;
  /** The wall clock (`wallClockNow(scheduler)`), ms: the conditions' transition times. */
  readonly now: () => number;
}

/**
 * The reconcile function of the Website controller.
 *
 * # Guarantees
 * - A Website that lives gets the finalizer `example.rxkube.io/dns-record` first, then, in one run: its defaults
 *   filled in (`resolveWebsite`), its ConfigMap, Deployment and Service applied in that order (`applyOwned`: one
 *   field manager, controller references, conflicts reported and forced), its DNS record published, and its status
 *   written (`writeStatus`: conditions from the Deployment's rollout, `observedGeneration`). Then it asks to be
 *   looked at again after `resyncPeriodMs`, since the record lives outside the cluster where no watch sees it.
 * - A Website that cannot be brought in line says why in `Degraded` (with a Warning Event) instead of failing
 *   silently: an invalid name or spec, a missing or invalid defaults ConfigMap (fixed by a change that triggers
 *   it again, so no retry), an object controlled by someone else (re-checked after at most 30 s), or a failed
 *   write (the run fails after writing `Degraded`, and is retried with backoff).
 * - A Website being deleted gets its record removed (a Normal `CleanedUp` Event), then loses the finalizer; its
 *   objects go with it through their owner references (the garbage collector's job, not the operator's).
 * - Every call takes the run's `signal`; an aborted run (lost leadership, shutdown) writes no `Degraded`.
 */
export function websiteReconciler(parts: ReconcilerParts): (request: ReconcileRequest<Website>) => Observable<unknown> {
  const memories = new Map<string, WebsiteMemory>();
  const remember = (id: WebsiteId): WebsiteMemory => {
    let memory = memories.get(id.key);
    if (memory?.uid !== id.uid) memories.set(id.key, (memory = newMemory(id.uid)));
    return memory;
  };
  const run = finalizer(parts.clients.websites, RECORD_FINALIZER, {
    store: parts.caches.websites,
    apply: (website, request) => {
      const id = websiteId(website);
      // The reconcile operator always gives a signal; a caller that gives none gets one that never aborts.
      return applyWebsite(
        parts,
        website,
        statusContext(parts, id, remember(id), request.signal ?? new AbortController().signal),
      );
    },
    cleanup: (website) => {
      const id = websiteId(website);
      memories.delete(id.key);
      return removeRecord(parts, id);
    },
  });
  return (request) => {
    if (request.object === undefined) memories.delete(request.key);
    return run(request);
  };
}

function statusContext(
  parts: ReconcilerParts,
  id: WebsiteId,
  memory: WebsiteMemory,
  signal: AbortSignal,
): StatusContext {
  return {
    client: parts.clients.websites,
    cache: parts.caches.websites,
    id,
    memory,
    events: parts.events,
    signal,
    now: parts.now,
  };
}

/** One run for a living Website that carries the finalizer. */
function applyWebsite(
  parts: ReconcilerParts,
  website: Website,
  context: StatusContext,
): Observable<RequeueAfter | undefined> {
  return defer(() => {
    const { id } = context;
    const degrade = (reason: string, message: string): Observable<never> =>
      writeStatus(context, {}, [degradedCondition(reason, message)]).pipe(ignoreElements());
    const badName = invalidNameReason(id.name);
    if (badName !== undefined) return degrade('InvalidName', badName);
    const outcome = resolveWebsite(
      website,
      parts.caches.configMaps.current().get(`${id.namespace}/${defaultsConfigMapOf(website)}`),
    );
    if ('unresolvable' in outcome) return degrade(outcome.unresolvable.reason, outcome.unresolvable.message);
    const desired = desiredObjects(id, outcome.resolved);
    const kinds = ownedKinds(parts);
    const blocked =
      foreignController(kinds.configMap, desired.configMap, id) ??
      foreignController(kinds.deployment, desired.deployment, id) ??
      foreignController(kinds.service, desired.service, id);
    if (blocked !== undefined) {
      return concat(degrade('NotOwned', blocked), [
        { requeueAfter: Math.min(BLOCKED_RECHECK_MS, parts.settings.resyncPeriodMs) },
      ]);
    }
    // Which step failed names the Degraded reason.
    let failure = 'ApplyFailed';
    return applyOwned(kinds.configMap, desired.configMap, context).pipe(
      concatMap(() => applyOwned(kinds.deployment, desired.deployment, context)),
      concatMap((deployment) =>
        applyOwned(kinds.service, desired.service, context).pipe(map((service) => ({ deployment, service }))),
      ),
      concatMap(({ deployment, service }) => {
        failure = 'RecordFailed';
        return publishRecord(parts, id, service).pipe(map(() => deployment));
      }),
      concatMap((deployment) => {
        failure = 'StatusFailed';
        return writeStatus(
          context,
          statusFields(parts, id, outcome.resolved, deployment),
          rolloutConditions(rolloutOf(deployment)),
        );
      }),
      map((): RequeueAfter => ({ requeueAfter: parts.settings.resyncPeriodMs })),
      catchError((error: unknown) => {
        if (context.signal.aborted) return throwError(() => error);
        // The run fails with the write's error either way (so it is retried); Degraded says so where users look.
        return concat(
          degrade(failure, messageOf(error)).pipe(catchError(() => EMPTY)),
          throwError(() => error),
        );
      }),
    );
  });
}

/** The three owned kinds, each with its client and its cache. */
interface OwnedKinds {
  readonly configMap: OwnedKind<V1ConfigMap>;
  readonly deployment: OwnedKind<V1Deployment>;
  readonly service: OwnedKind<V1Service>;
}

function ownedKinds({ clients, caches }: ReconcilerParts): OwnedKinds {
  return {
    configMap: { resource: CONFIG_MAP, client: clients.configMaps, cache: caches.configMaps },
    deployment: { resource: DEPLOYMENT, client: clients.deployments, cache: caches.deployments },
    service: { resource: SERVICE, client: clients.services, cache: caches.services },
  };
}

function statusFields(parts: ReconcilerParts, id: WebsiteId, resolved: ResolvedWebsite, deployment: V1Deployment) {
  const rollout = rolloutOf(deployment);
  return {
    image: resolved.image,
    replicas: rollout.replicas,
    readyReplicas: rollout.readyReplicas,
    url: serviceUrl(id),
    hostname: hostnameOf(parts, id),
  };
}

/** `<name>.<namespace>.<domain>`. */
export function hostnameOf(parts: Pick<ReconcilerParts, 'settings'>, id: WebsiteId): string {
  return `${id.name}.${id.namespace}.${parts.settings.domain}`;
}

/** The Website's DNS record: an `A` record to its Service's cluster IP, or a `CNAME` to the Service's name. */
export function recordOf(parts: Pick<ReconcilerParts, 'settings'>, id: WebsiteId, service: V1Service): DnsRecord {
  const clusterIP = service.spec?.clusterIP;
  const address =
    clusterIP && clusterIP !== 'None'
      ? { type: 'A' as const, value: clusterIP }
      : { type: 'CNAME' as const, value: `${ownedNames(id.name).service}.${id.namespace}.svc.cluster.local` };
  return {
    hostname: hostnameOf(parts, id),
    ...address,
    website: { namespace: id.namespace, name: id.name, uid: id.uid },
  };
}

function publishRecord(parts: ReconcilerParts, id: WebsiteId, service: V1Service): Observable<unknown> {
  const record = recordOf(parts, id, service);
  const { records } = parts.settings;
  return records.put(record).pipe(
    tap((change) => {
      if (change === 'unchanged') return;
      parts.events.record(id, {
        type: 'Normal',
        reason: REASONS.recordWritten,
        action: 'PublishRecord',
        note: `${change} DNS record ${record.hostname} ${record.type} ${record.value} (${records.where(id.namespace, id.name)})`,
      });
    }),
  );
}

function removeRecord(parts: ReconcilerParts, id: WebsiteId): Observable<unknown> {
  const { records } = parts.settings;
  return records.remove(id.namespace, id.name).pipe(
    tap((existed) => {
      const where = records.where(id.namespace, id.name);
      parts.events.record(id, {
        type: 'Normal',
        reason: REASONS.cleanedUp,
        action: 'Cleanup',
        note: existed ? `removed DNS record ${hostnameOf(parts, id)} (${where})` : `no DNS record to remove (${where})`,
      });
    }),
  );
}
