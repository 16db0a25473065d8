/**
 * The virtual cluster serves an informer and a resource client in virtual time: no sockets, no real time, and the
 * same seed gives the same bytes.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { takeUntil, timer, VirtualTimeScheduler, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { resourceClient } from '../../../src/client/index.js';
import { informer, type InformerEvent } from '../../../src/informer/index.js';
import { virtualCluster, type VirtualCluster } from '../../../src/testing/index.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

const configMap = (name: string, data: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

/** `t:type:name` for each informer event, `t` in virtual ms. */
function recordEvents(cluster: VirtualCluster, until: number, log: string[]): Subscription {
  const configMaps = informer<V1ConfigMap>(cluster, CONFIG_MAPS, { scheduler: cluster.scheduler, random: () => 0.5 });
  return configMaps.events$
    .pipe(takeUntil(timer(until, cluster.scheduler)))
    .subscribe((event: InformerEvent<V1ConfigMap>) => {
      log.push(`${cluster.scheduler.now()}:${event.type}:${event.object.metadata?.name}`);
    });
}

/**
 * Runs `act` on a fresh virtual cluster with a ConfigMap informer for a virtual minute: each store snapshot as
 * `t:key,key…` (`t` in virtual ms), and each informer event as `type:name`.
 */
function recordBatches(act: (cluster: VirtualCluster) => void): { snapshots: string[]; events: string[] } {
  const snapshots: string[] = [];
  const events: string[] = [];
  const testScheduler = scheduler();
  testScheduler.run(({ flush }) => {
    const cluster = virtualCluster({ scheduler: testScheduler, seed: 1 });
    const configMaps = informer<V1ConfigMap>(cluster, CONFIG_MAPS, { scheduler: cluster.scheduler, random: () => 0.5 });
    const until = timer(60_000, cluster.scheduler);
    configMaps.store$
      .pipe(takeUntil(until))
      .subscribe((store) => snapshots.push(`${cluster.scheduler.now()}:${[...store.keys()].join(',')}`));
    configMaps.events$
      .pipe(takeUntil(until))
      .subscribe((event) => events.push(`${event.type}:${event.object.metadata?.name}`));
    act(cluster);
    flush();
    cluster.close();
  });
  return { snapshots, events };
}

describe('virtualCluster: informers and writes in virtual time', () => {
  it('syncs an informer from seeded objects and delivers later writes at their virtual times', () => {
    const log: string[] = [];
    const testScheduler = scheduler();
    testScheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler: testScheduler, seed: 1 });
      cluster.seed([configMap('a'), configMap('b')]);
      recordEvents(cluster, 60_000, log);
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
      timer(1000, cluster.scheduler).subscribe(() => client.create(configMap('c')).subscribe());
      timer(2000, cluster.scheduler).subscribe(() =>
        client.patch('a', { type: 'merge', body: { data: { k: 'v' } } }).subscribe(),
      );
      timer(3000, cluster.scheduler).subscribe(() => client.delete('b').subscribe());
      flush();
      cluster.close();
    });
    expect(log).to.deep.equal(['0:added:a', '0:added:b', '1000:added:c', '2000:updated:a', '3000:deleted:b']);
  });

  it('applies the lines of one chunk as one store batch: two writes a stall held back make one snapshot', () => {
    const { snapshots } = recordBatches((cluster) => {
      timer(1000, cluster.scheduler).subscribe(() => cluster.faults.stallWatches(500));
      timer(1100, cluster.scheduler).subscribe(() => cluster.seed([configMap('a')]));
      timer(1200, cluster.scheduler).subscribe(() => cluster.seed([configMap('b')]));
    });
    // The empty store, the synced empty list, then a and b together (line by line it would be a, then a and b).
    expect(snapshots).to.deep.equal(['0:', '0:', '1500:default/a,default/b']);
  });

  it('applies a burst of writes made in one synchronous run as one store batch, in their order', () => {
    const { snapshots, events } = recordBatches((cluster) => {
      timer(1000, cluster.scheduler).subscribe(() => cluster.seed([configMap('a'), configMap('b'), configMap('c')]));
    });
    expect(snapshots).to.deep.equal(['0:', '0:', '1000:default/a,default/b,default/c']);
    expect(events).to.deep.equal(['added:a', 'added:b', 'added:c']);
  });

  it("delivers a write's watch event before its response: an informer holds the created object when the create answers", () => {
    const seen: string[] = [];
    const testScheduler = scheduler();
    testScheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler: testScheduler, seed: 1 });
      const configMaps = informer<V1ConfigMap>(cluster, CONFIG_MAPS, {
        scheduler: cluster.scheduler,
        random: () => 0.5,
      });
      const sub = configMaps.events$.pipe(takeUntil(timer(60_000, cluster.scheduler))).subscribe();
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
      for (const [at, name] of [
        [1000, 'a'],
        [2000, 'b'],
        [2000, 'c'],
      ] as const) {
        timer(at, cluster.scheduler).subscribe(() =>
          client.create(configMap(name)).subscribe((made) => {
            const cached = configMaps.current().get(`default/${name}`);
            seen.push(
              `${cluster.scheduler.now()}:${name}:${cached?.metadata?.resourceVersion === made.metadata?.resourceVersion ? 'cached' : 'missing'}`,
            );
          }),
        );
      }
      flush();
      sub.unsubscribe();
      cluster.close();
    });
    expect(seen).to.deep.equal(['1000:a:cached', '2000:b:cached', '2000:c:cached']);
  });

  it('gives byte-identical objects for the same seed and different uids for another seed', () => {
    const run = (seed: number): string => {
      let out = '';
      const testScheduler = scheduler();
      testScheduler.run(({ flush }) => {
        const cluster = virtualCluster({ scheduler: testScheduler, seed });
        const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
        timer(5000, cluster.scheduler).subscribe(() =>
          client
            .create({ ...configMap(''), metadata: { generateName: 'gen-', namespace: 'default' } })
            .subscribe((created) => {
              out = JSON.stringify(created);
            }),
        );
        flush();
        cluster.close();
      });
      return out;
    };
    const first = run(7);
    expect(first).to.equal(run(7));
    expect(first).to.not.equal(run(8));
    expect(JSON.parse(first).metadata.creationTimestamp).to.equal('1970-01-01T00:00:05Z');
  });

  it('runs on a VirtualTimeScheduler too: nothing happens until it is flushed', () => {
    const scheduler = new VirtualTimeScheduler(undefined, 3_600_000);
    const cluster = virtualCluster({ scheduler, seed: 2 });
    const log: string[] = [];
    recordEvents(cluster, 600_000, log);
    cluster.seed([configMap('a')]);
    timer(120_000, scheduler).subscribe(() => cluster.seed([configMap('b')]));
    expect(log).to.deep.equal([]);
    scheduler.flush();
    cluster.close();
    expect(log).to.deep.equal(['0:added:a', '120000:added:b']);
    expect(cluster.openWatches()).to.equal(0);
  });

  it('gives the same trace, byte for byte, for the same seed and requests: every response and every watch line', () => {
    const trace = (seed: number): string[] => {
      const lines: string[] = [];
      const testScheduler = scheduler();
      testScheduler.run(({ flush }) => {
        const cluster = virtualCluster({ scheduler: testScheduler, seed, bookmarkIntervalMs: 1000 });
        cluster
          .watch('/api/v1/namespaces/default/configmaps', { allowWatchBookmarks: true, timeoutSeconds: 30 })
          .subscribe((line) => lines.push(`${testScheduler.now()} watch ${line}`));
        const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
        const write = (at: number, run: () => void): void => void timer(at, testScheduler).subscribe(run);
        write(100, () =>
          client
            .create({ ...configMap(''), metadata: { generateName: 'x-', namespace: 'default' } })
            .subscribe((o) => lines.push(`create ${JSON.stringify(o)}`)),
        );
        write(2500, () => client.create(configMap('svc')).subscribe((o) => lines.push(`create ${JSON.stringify(o)}`)));
        write(4000, () =>
          client
            .apply({ ...configMap('svc'), data: { k: 'v' } }, { fieldManager: 'spec' })
            .subscribe((o) => lines.push(`apply ${JSON.stringify(o)}`)),
        );
        write(7000, () =>
          cluster
            .request({
              method: 'GET',
              path: '/api/v1/namespaces/default/configmaps',
              accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
            })
            .subscribe((r) => lines.push(`table ${JSON.stringify(r.body)}`)),
        );
        flush();
        cluster.close();
      });
      return lines;
    };
    const first = trace(11);
    expect(first.filter((line) => line.includes('BOOKMARK'))).to.have.length.greaterThan(20);
    expect(first.join('\n')).to.equal(trace(11).join('\n'));
    expect(first.join('\n')).to.not.equal(trace(12).join('\n'));
  });
});
