/**
 * Every entry point that talks to a cluster takes the virtual cluster as its connection and runs in virtual time:
 * listWatch, informer, informerFactory, resourceClient, eventRecorder, leaderElection, the controller builder and
 * the manager.
 */
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { lastValueFrom, takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { eventRecorder } from '../../../src/client/index.js';
import { controller, startController } from '../../../src/index.js';
import { informerFactory } from '../../../src/informer/index.js';
import { leaderElection } from '../../../src/leader/index.js';
import { manager } from '../../../src/manager/index.js';
import { resolveResource, type ResolvedResource } from '../../../src/resources/index.js';
import { virtualCluster, type VirtualCluster } from '../../../src/testing/index.js';
import { listWatch, type WatchEvent } from '../../../src/watch/index.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const LEASES = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;
const EVENTS = { apiVersion: 'events.k8s.io/v1', kind: 'Event' } as const;
const configMap = (name: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

function inVirtualTime(body: (cluster: VirtualCluster, scheduler: TestScheduler) => void): void {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  scheduler.run(({ flush }) => {
    const cluster = virtualCluster({ scheduler, seed: 5 });
    body(cluster, scheduler);
    flush();
    cluster.close();
  });
}

function describeWatchEvent(event: WatchEvent<V1ConfigMap>): string {
  switch (event.type) {
    case 'status':
      return `status:${event.status.state}`;
    case 'relistDone':
      return `relistDone:${event.resourceVersion}`;
    case 'relistStarted':
    case 'bookmark':
      return event.type;
    default:
      return `${event.type}:${'object' in event ? event.object.metadata?.name : ''}`;
  }
}

describe('virtualCluster: every entry point takes it as its connection', () => {
  it("listWatch lists, watches, and resumes at the server's watch timeout without relisting", () => {
    const log: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed([configMap('a')]);
      // random 0: the watch asks for timeoutSeconds=300, so the server ends it at 300 s of virtual time.
      listWatch<V1ConfigMap>(cluster, CONFIG_MAPS, { scheduler, random: () => 0 })
        .pipe(takeUntil(timer(400_000, scheduler)))
        .subscribe((event) => log.push(`${scheduler.now()} ${describeWatchEvent(event)}`));
      timer(350_000, scheduler).subscribe(() => cluster.seed([configMap('b')]));
    });
    const rv = (line: string) => line.split(':').at(-1);
    expect(log).to.deep.equal([
      '0 status:connecting',
      '0 status:listing',
      '0 relistStarted',
      '0 listed:a',
      `0 relistDone:${rv(log[4]!)}`,
      '0 status:connecting',
      '0 status:watching',
      '60000 bookmark',
      '120000 bookmark',
      '180000 bookmark',
      '240000 bookmark',
      '300000 status:connecting',
      '300000 status:watching',
      '350000 added:b',
      '360000 bookmark',
    ]);
  });

  it('informerFactory shares one watch between two views and syncs from the virtual cluster', () => {
    const synced: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed([configMap('a'), configMap('b')]);
      const factory = informerFactory(cluster, { scheduler, random: () => 0.5 });
      const stop = timer(1000, scheduler);
      factory
        .for<V1ConfigMap>(CONFIG_MAPS)
        .synced$.pipe(takeUntil(stop))
        .subscribe((s) => synced.push(`${scheduler.now()} first ${s}`));
      factory
        .for<V1ConfigMap>(CONFIG_MAPS)
        .store$.pipe(takeUntil(stop))
        .subscribe((store) => synced.push(`${scheduler.now()} store ${store.size}`));
      timer(10, scheduler).subscribe(() => synced.push(`10 watches ${cluster.openWatches()}`));
    });
    expect(synced).to.include('10 watches 1');
    expect(synced).to.include('0 first true');
    expect(synced.filter((line) => line.includes('store 2'))).to.not.be.empty;
  });

  it('informerFactory hands its random to every informer: the watch timeout it asks the server for follows it', () => {
    const reconnects = (random: () => number): number[] => {
      const times: number[] = [];
      inVirtualTime((cluster, scheduler) => {
        const factory = informerFactory(cluster, { scheduler, random });
        factory
          .for<V1ConfigMap>(CONFIG_MAPS)
          .status$.pipe(takeUntil(timer(1_000_000, scheduler)))
          .subscribe((status) => status.state === 'watching' && times.push(scheduler.now()));
      });
      return times;
    };
    // random 0 asks for timeoutSeconds=300, random 0.999 for 600: the server ends each watch then.
    expect(reconnects(() => 0)).to.deep.equal([0, 300_000, 600_000, 900_000]);
    expect(reconnects(() => 0.999)).to.deep.equal([0, 600_000]);
  });

  it('eventRecorder writes its Events with virtual timestamps', () => {
    let stored: unknown[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed([configMap('a')]);
      const recorder = eventRecorder(cluster, {
        reportingController: 'example.com/virtual',
        reportingInstance: 'spec',
        scheduler,
        random: () => 0.25,
      });
      timer(2000, scheduler).subscribe(() =>
        recorder.event(configMap('a'), { type: 'Normal', reason: 'Seen', action: 'Look', note: 'hello' }),
      );
      timer(10_000, scheduler).subscribe(() => {
        stored = cluster.list(EVENTS, 'default');
        void lastValueFrom(recorder.close());
      });
    });
    expect(stored).to.have.length(1);
    const event = stored[0] as {
      reason: string;
      eventTime: string;
      regarding: { name: string };
      metadata: { creationTimestamp: string };
    };
    expect(event.reason).to.equal('Seen');
    expect(event.regarding.name).to.equal('a');
    expect(event.eventTime.startsWith('1970-01-01T00:00:02')).to.equal(true);
    expect(event.metadata.creationTimestamp).to.equal('1970-01-01T00:00:02Z');
  });

  it('leaderElection: one candidate leads, the second one takes the Lease over after the first stopped', () => {
    const log: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      const options = {
        namespace: 'default',
        name: 'lock',
        scheduler,
        random: () => 0.5,
        leaseDuration: 15_000,
        renewDeadline: 10_000,
        retryPeriod: 2000,
      };
      // The first candidate stops at 30 s (and releases the Lease); the second one takes it at its next retry.
      leaderElection(cluster, { ...options, identity: 'one' })
        .pipe(takeUntil(timer(30_000, scheduler)))
        .subscribe((leading) => log.push(`${scheduler.now()} one ${leading}`));
      timer(1000, scheduler).subscribe(() =>
        leaderElection(cluster, { ...options, identity: 'two' })
          .pipe(takeUntil(timer(80_000, scheduler)))
          .subscribe((leading) => log.push(`${scheduler.now()} two ${leading}`)),
      );
      timer(60_000, scheduler).subscribe(() => {
        const [lease] = cluster.list(LEASES, 'default') as Array<{
          spec: { holderIdentity: string; renewTime: string };
        }>;
        log.push(`60000 holder ${lease!.spec.holderIdentity}`);
      });
    });
    expect(log.slice(0, 3)).to.deep.equal(['0 one false', '0 one true', '1000 two false']);
    expect(log).to.include('60000 holder two');
    const takeover = log.find((line) => line.endsWith(' two true'))!;
    expect(Number(takeover.split(' ')[0])).to.be.within(30_000, 32_000 + 2000);
  });

  it('the manager runs a controller built with connection-free context against the virtual cluster, leases and all', () => {
    const log: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed([configMap('a'), configMap('b')]);
      manager({
        connection: cluster,
        name: 'virtual',
        scheduler,
        controllers: [
          {
            name: 'configmaps',
            start: (context) =>
              controller<V1ConfigMap>({
                context,
                for: CONFIG_MAPS,
                reconcile: ({ key }) => void log.push(`${scheduler.now()} reconcile ${key}`),
              }),
          },
        ],
        leaderElection: { namespace: 'default', identity: 'me', random: () => 0.5 },
        informers: { random: () => 0.5 },
        metrics: false,
        health: false,
        signals: false,
        events: false,
        logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
        stop$: timer(20_000, scheduler),
      }).subscribe();
    });
    expect(log.map((line) => line.split(' ').slice(1).join(' ')).sort()).to.deep.equal([
      'reconcile default/a',
      'reconcile default/b',
    ]);
  });

  it('the controller builder takes the virtual cluster as its connection', () => {
    const log: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed([configMap('a')]);
      startController(
        {
          name: 'configmaps',
          start: (context) =>
            controller<V1ConfigMap>({
              context,
              for: CONFIG_MAPS,
              reconcile: ({ key }) => void log.push(`${scheduler.now()} ${key}`),
            }),
        },
        { connection: cluster, scheduler },
      )
        .pipe(takeUntil(timer(5000, scheduler)))
        .subscribe();
    });
    expect(log).to.deep.equal(['0 default/a']);
  });

  it("resolveResource resolves a custom kind through the virtual cluster's discovery", async () => {
    let resolved: Promise<ResolvedResource> | undefined;
    inVirtualTime((cluster) => {
      cluster.seed([
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'widgets.example.com' },
          spec: {
            group: 'example.com',
            scope: 'Cluster',
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            ],
          },
        } as KubernetesObject,
      ]);
      resolved = resolveResource(cluster, { apiVersion: 'example.com/v1', kind: 'Widget' });
    });
    expect(await resolved).to.deep.include({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      namespaced: false,
    });
  });
});
