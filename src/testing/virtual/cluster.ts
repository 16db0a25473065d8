/**
 * `virtualCluster()`: the in-memory API server's core served in process as a `Transport` (from `rxkube/extend`), on the caller's
 * scheduler, with seeded randomness.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { splitApiVersion } from '../../objects/index.js';
import { collectionPath } from '../../resources/index.js';
import type { WatchHealthReport } from '../../watch/index.js';
import {
  atVersion,
  cloneJson,
  createServerCore,
  groupVersion,
  seededRandom,
  seededRuntime,
  storageKey,
} from '../apiserver/index.js';
import { bodyText, lowerCased, whole } from './answers.js';
import type { CutExchange } from './exchange.js';
import { createLink, type LinkContext } from './link.js';
import { checkDelay, NetworkFaultState, WarningState } from './network.js';
import type {
  ConflictKeyOptions,
  RawExchangeResponse,
  VirtualCluster,
  VirtualClusterOptions,
  VirtualFaults,
  VirtualLinkOptions,
} from './types.js';

/** Mixed into the seed of the delay generator, so that it draws apart from the server's own generator. */
const DELAY_STREAM = 0x9e3779b9;

/**
 * Starts a virtual cluster on `options.scheduler`.
 *
 * # Guarantees
 * - The server core is the one `startTestCluster` serves over HTTP: storage, validation, watch, write, apply and
 *   fault semantics are the same code.
 * - The default namespaces exist when it returns (created at the scheduler's current time).
 *
 * # Caveats
 * - The `scheduler`'s clock is the server's clock: inside `TestScheduler.run()` timestamps start at the epoch.
 */
export function virtualCluster(options: VirtualClusterOptions): VirtualCluster {
  const { scheduler } = options;
  const seed = options.seed ?? 0;
  const latency = checkDelay(options.latency, 'virtualCluster: latency');
  const watchLag = checkDelay(options.watchLag, 'virtualCluster: watchLag');
  const open = new Set<CutExchange>();
  let closed = false;
  const runtime = seededRuntime(scheduler, seed);
  const cutAll = (reason: string): void => {
    for (const cut of [...open]) cut(reason);
  };
  const core = createServerCore(options, runtime, {
    restart: () => cutAll('connection reset by the restart fault'),
    serverAddress: () => 'virtual-cluster:443',
  });
  const network = new NetworkFaultState();
  const warnings = new WarningState();
  const health: WatchHealthReport[] = [];
  const onHealth = (report: WatchHealthReport): void => {
    health.push(report);
    options.onHealth?.(report);
  };
  const context: LinkContext = {
    core,
    scheduler,
    network,
    warnings,
    onHealth,
    random: seededRandom(seed ^ DELAY_STREAM),
    register: (cut) => {
      open.add(cut);
      return () => open.delete(cut);
    },
    closed: () => closed,
  };
  const linkOf = (linkOptions: VirtualLinkOptions) =>
    createLink(
      context,
      {
        ...(linkOptions.userAgent !== undefined ? { userAgent: linkOptions.userAgent } : {}),
        latency: linkOptions.latency === undefined ? latency : checkDelay(linkOptions.latency, 'link: latency'),
        watchLag: linkOptions.watchLag === undefined ? watchLag : checkDelay(linkOptions.watchLag, 'link: watchLag'),
      },
      new NetworkFaultState(),
    );
  // The cluster's own link meets the cluster's network faults only: they are every link's.
  const own = createLink(context, { latency, watchLag }, new NetworkFaultState());

  const pathOf = (key: ConflictKeyOptions): string => {
    const { group, version } = splitApiVersion(key.resource.apiVersion);
    const info = core.state.registry
      .all()
      .find((r) => r.group === group && r.kind === key.resource.kind && r.versions.includes(version));
    if (info === undefined)
      throw new RangeError(`the virtual cluster serves no ${key.resource.kind} in ${key.resource.apiVersion}`);
    const resource = { group, version, kind: info.kind, plural: info.plural, namespaced: info.namespaced };
    return `${collectionPath(resource, info.namespaced ? (key.namespace ?? 'default') : undefined)}/${key.name}`;
  };

  const faults: VirtualFaults = {
    ...core.faults,
    conflictNext: (o) =>
      core.faults.conflictNext(
        'path' in o ? o : { path: pathOf(o), ...(o.count !== undefined ? { count: o.count } : {}) },
      ),
    clear: () => {
      core.faults.clear();
      network.heal();
      warnings.clear();
    },
    warnNext: (o) => warnings.warnNext(o),
    refuseNext: (o) => network.refuseNext(o),
    hangNext: (o) => network.hangNext(o),
    loseAnswerNext: (o) => network.loseAnswerNext(o),
    partition: (o) => network.partition(o),
    heal: () => network.heal(),
  };

  return {
    ...own.link,
    scheduler,
    randomSeed: seed,
    faults,
    health,
    link: (linkOptions = {}) => linkOf(linkOptions).link,
    seed: (objects, seedOptions) => core.seed(objects, seedOptions),
    update: (objects, seedOptions) => core.update(objects, seedOptions),
    list: (resource, namespace) => {
      const [group, version] = resource.apiVersion.includes('/')
        ? (resource.apiVersion.split('/') as [string, string])
        : ['', resource.apiVersion];
      const info = core.state.registry
        .all()
        .find((r) => r.group === group && r.kind === resource.kind && r.versions.includes(version));
      if (info === undefined)
        throw new RangeError(`the virtual cluster serves no ${resource.kind} in ${resource.apiVersion}`);
      const apiVersion = groupVersion(group, version);
      return [...core.state.store.values(storageKey(info))]
        .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
        .map((o) => cloneJson(atVersion(o, apiVersion)) as KubernetesObject)
        .sort((a, b) => {
          const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
          const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
          return ka < kb ? -1 : ka > kb ? 1 : 0;
        });
    },
    exchangeStream: (raw) => own.serveRaw(raw),
    exchange: (raw) =>
      new Observable<RawExchangeResponse>((subscriber) =>
        whole(own.serveRaw(raw)).subscribe({
          next: ({ status, headers: h, body }) => {
            subscriber.next({ status, headers: lowerCased(h), text: bodyText(body) });
            subscriber.complete();
          },
          error: (error: unknown) => subscriber.error(error),
        }),
      ),
    resourceVersion: () => core.resourceVersion(),
    openWatches: () => core.openWatches(),
    requestLog: core.requestLog,
    close: () => {
      if (closed) return;
      closed = true;
      core.state.hub.dropAll('clean');
      cutAll('the virtual cluster closed');
      runtime.cancelAll();
    },
  };
}
