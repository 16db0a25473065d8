/**
 * The virtual cluster serves an informer and a resource client in virtual time: no sockets, no real time, and the
 * same seed gives the same bytes.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { takeUntil, timer, type Subscription } from 'rxjs';
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
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data,
});

/** `t:type:name` for each informer event, `t` in virtual ms. */
function recordEvents(cluster: VirtualCluster, until: number, log: string[]): Subscription {
  const configMaps = informer<V1ConfigMap>(cluster, CONFIG_MAPS, { scheduler: cluster.scheduler, random: () => 0.5 });
  return configMaps.events$.pipe(takeUntil(timer(until, cluster.scheduler))).subscribe((event: InformerEvent<V1ConfigMap>) => {
    log.push(`${cluster.scheduler.now()}:${event.type}:${event.object.metadata?.name}`);
  });
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
      timer(2000, cluster.scheduler).subscribe(() => client.patch('a', { type: 'merge', body: { data: { k: 'v' } } }).subscribe());
      timer(3000, cluster.scheduler).subscribe(() => client.delete('b').subscribe());
      flush();
      cluster.close();
    });
    expect(log).to.deep.equal(['0:added:a', '0:added:b', '1000:added:c', '2000:updated:a', '3000:deleted:b']);
  });

  it('gives byte-identical objects for the same seed and different uids for another seed', () => {
    const run = (seed: number): string => {
      let out = '';
      const testScheduler = scheduler();
      testScheduler.run(({ flush }) => {
        const cluster = virtualCluster({ scheduler: testScheduler, seed });
        const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
        timer(5000, cluster.scheduler).subscribe(() => client.create({ ...configMap(''), metadata: { generateName: 'gen-', namespace: 'default' } }).subscribe((created) => {
          out = JSON.stringify(created);
        }));
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
});
