/**
 * The Website controller, built with `controller()` (controller-runtime's builder) and run by the manager:
 * `For(&Website{})`, `Owns(&Deployment{})`, `Owns(&Service{})`, `Owns(&ConfigMap{})`, and `Watches` on the
 * defaults ConfigMaps, mapped to every Website that uses them.
 * @module
 */
import type { KubernetesObject, V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import {
  controller,
  predicates,
  resourceClient,
  wallClockNow,
  type ControllerDefinition,
  type ReconcileEvent,
  type ReconcileTrigger,
  type Store,
} from '../../src/index.js';
import type { Indexer } from '../../src/extend.js';
import { defaultsConfigMapOf } from './defaults.js';
import { websiteEvents } from './events.js';
import { resolveOptions, type WebsiteOperatorOptions } from './options.js';
import { websiteReconciler } from './reconciler.js';
import { CONFIG_MAP, DEPLOYMENT, SERVICE, WEBSITE, type Website } from './website.js';

/** The controller's name under the manager: the `controller` label of its metrics and logs. */
export const WEBSITE_CONTROLLER = 'websites';

/** The Website cache's index of `namespace/defaults-configmap-name`: which Websites a defaults ConfigMap feeds. */
export const DEFAULTS_INDEX = 'defaultsConfigMap';

/**
 * The {@link DEFAULTS_INDEX} indexer. One function, so every view of the shared Website informer declares the same
 * one (the factory refuses two functions under one name).
 */
export const byDefaultsConfigMap: Indexer<Website> = (website) => {
  const namespace = website.metadata?.namespace;
  return namespace ? `${namespace}/${defaultsConfigMapOf(website)}` : undefined;
};

/**
 * Which Website updates start a run: a new generation (a spec change; status writes and metadata-only changes do
 * not move it) or the start of a deletion (the real API server bumps the generation then too, the in-memory one
 * does not, so this does not rely on it). Additions, deletions and resyncs always pass.
 */
export const websiteChanges = predicates.or<Website>(
  predicates.generationChanged<Website>(),
  (event) =>
    event.type === 'updated' &&
    !event.old.metadata?.deletionTimestamp &&
    Boolean(event.object.metadata?.deletionTimestamp),
);

/**
 * ConfigMap events that can change a Website's defaults: any but an update that left `data` and `binaryData` as they
 * were (the API server writes map keys sorted, so equal maps serialize equally).
 */
export const defaultsChanges = predicates.from<V1ConfigMap>(
  (event) =>
    event.type !== 'updated' ||
    JSON.stringify([event.old.data, event.old.binaryData]) !==
      JSON.stringify([event.object.data, event.object.binaryData]),
);

/**
 * The Websites `configMap` is the defaults of, as triggers whose reason names it: `defaults <namespace>/<name>`.
 * Read from the Website cache's {@link DEFAULTS_INDEX}, so a change fans out to every user and to no one else.
 */
export function websitesUsing(websites: Store<Website>, configMap: KubernetesObject): ReconcileTrigger[] {
  const at = `${configMap.metadata?.namespace}/${configMap.metadata?.name}`;
  return websites.byIndex(DEFAULTS_INDEX, at).map((website) => ({
    key: `${website.metadata!.namespace}/${website.metadata!.name}`,
    reason: `defaults ${at}`,
  }));
}

/**
 * The website operator as a controller of a manager, named {@link WEBSITE_CONTROLLER}.
 *
 * # Guarantees
 * - Shares the manager's informers: Websites (indexed by their defaults ConfigMap), Deployments, Services and
 *   ConfigMaps, in `namespace` or every namespace; the ConfigMap informer serves both `owns` and the defaults
 *   `watches`. No run starts before all four have synced and this replica leads.
 * - A Website is reconciled when its spec changes or its deletion starts, when one of the objects it controls
 *   changes (or is deleted), when its defaults ConfigMap's data changes (or it appears or goes), and every
 *   `resyncPeriodMs`; runs of one Website never overlap; `workers` Websites run at once. See `websiteReconciler`.
 * - Every client call takes the run's signal, so a lost leadership or a shutdown aborts the writes in flight.
 * - Events go through the manager's recorder; each prints a line, and one the recorder loses prints why.
 * - Throws at once for invalid options (see `resolveOptions`).
 *
 * # Caveats
 * - Caches every Deployment, Service and ConfigMap in scope, as controller-runtime's `Owns` does; the RBAC must let
 *   it list and watch them.
 */
export function websiteController(options: WebsiteOperatorOptions = {}): ControllerDefinition {
  const settings = resolveOptions(options);
  return {
    name: WEBSITE_CONTROLLER,
    start: (context) => {
      const scope = settings.namespace === undefined ? {} : { namespace: settings.namespace };
      const websiteWatch = { ...scope, indexers: { [DEFAULTS_INDEX]: byDefaultsConfigMap } };
      const caches = {
        websites: context.informers.for<Website>(WEBSITE, websiteWatch),
        deployments: context.informers.for<V1Deployment>(DEPLOYMENT, scope),
        services: context.informers.for<V1Service>(SERVICE, scope),
        configMaps: context.informers.for<V1ConfigMap>(CONFIG_MAP, scope),
      };
      const clientOptions = { fieldManager: settings.fieldManager, scheduler: context.scheduler };
      const events = websiteEvents(context.recorder, settings.print);
      const controller$ = controller<Website>({
        context,
        for: { resource: WEBSITE, options: websiteWatch },
        forFilter: websiteChanges,
        owns: [DEPLOYMENT, SERVICE, CONFIG_MAP].map((resource) => ({ resource, options: scope })),
        watches: [
          {
            source: { resource: CONFIG_MAP, options: scope },
            filter: defaultsChanges,
            map: (event) => websitesUsing(caches.websites.current(), event.object),
          },
        ],
        concurrency: settings.workers,
        reconcile: websiteReconciler({
          settings,
          clients: {
            websites: resourceClient<Website>(context.connection, WEBSITE, clientOptions),
            deployments: resourceClient<V1Deployment>(context.connection, DEPLOYMENT, clientOptions),
            services: resourceClient<V1Service>(context.connection, SERVICE, clientOptions),
            configMaps: resourceClient<V1ConfigMap>(context.connection, CONFIG_MAP, clientOptions),
          },
          caches,
          events,
          now: () => wallClockNow(context.scheduler),
        }),
      });
      return new Observable<ReconcileEvent>((subscriber) => {
        // Lost Events are printed while the controller runs; its completion (after a drain) ends both.
        const subscription = events.lost$.subscribe();
        subscription.add(controller$.subscribe(subscriber));
        return subscription;
      });
    },
  };
}
