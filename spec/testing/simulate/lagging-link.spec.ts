/**
 * laggingLink: one client or one informer served a stale view of a virtual cluster, scripted by the test, while
 * the cluster and its other clients keep the truth.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { TestScheduler } from 'rxjs/testing';
import { informer, resourceClient } from '../../../src/index.js';
import { apiErrors } from '../../../src/index.js';
import { laggingLink, virtualCluster } from '../../../src/testing/index.js';
import { objectPath } from '../../../src/testing/simulate/stale-read.js';
import { CONFIG_MAP, config } from './config-maps.js';

const testScheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });

/** `v` of each cached ConfigMap, by name, in name order. */
const versions = (cache: { values(): Iterable<V1ConfigMap> }): string =>
  [...cache.values()]
    .map((c) => `${c.metadata!.name}=${c.data?.['v'] ?? '-'}`)
    .sort()
    .join(' ');

describe('laggingLink: a stale view for one client or one informer', () => {
  it('serves an informer each change lagMs late while a true informer sees it at once, and heals in order', () => {
    const scheduler = testScheduler();
    const seen: string[] = [];
    scheduler.run(() => {
      const cluster = virtualCluster({ scheduler });
      const link = laggingLink(cluster);
      const writes = resourceClient<V1ConfigMap>(cluster, CONFIG_MAP, { namespace: 'default' });
      const stale = informer<V1ConfigMap>(link, CONFIG_MAP, { namespace: 'default', scheduler });
      const truth = informer<V1ConfigMap>(cluster, CONFIG_MAP, { namespace: 'default', scheduler });
      const subscriptions = [stale.events$.subscribe(), truth.events$.subscribe()];
      scheduler.schedule(() => {
        for (const subscription of subscriptions) subscription.unsubscribe();
        cluster.close();
      }, 500);
      scheduler.schedule(() => link.staleView({ lagMs: 100, versions: 0, forMs: 1000, relist: false }), 10);
      scheduler.schedule(() => writes.create(config('a', { v: '1' })).subscribe(), 20);
      scheduler.schedule(() => writes.patch('a', { type: 'merge', body: { data: { v: '2' } } }).subscribe(), 40);
      for (const at of [30, 50, 130, 150])
        scheduler.schedule(
          () => seen.push(`${at} stale[${versions(stale.current())}] truth[${versions(truth.current())}]`),
          at,
        );
    });
    expect(seen).to.deep.equal([
      '30 stale[] truth[a=1]',
      '50 stale[] truth[a=2]',
      '130 stale[a=1] truth[a=2]',
      '150 stale[a=2] truth[a=2]',
    ]);
  });

  it("serves a client's reads resourceVersions back, while its writes go to the truth and conflict there", () => {
    const scheduler = testScheduler();
    const outcomes: string[] = [];
    scheduler.run(() => {
      const cluster = virtualCluster({ scheduler });
      const link = laggingLink(cluster);
      const truth = resourceClient<V1ConfigMap>(cluster, CONFIG_MAP, { namespace: 'default' });
      const stale = resourceClient<V1ConfigMap>(link, CONFIG_MAP, { namespace: 'default' });
      scheduler.schedule(() => truth.create(config('a', { v: '1' })).subscribe(), 10);
      scheduler.schedule(() => truth.patch('a', { type: 'merge', body: { data: { v: '2' } } }).subscribe(), 20);
      scheduler.schedule(() => link.staleView({ lagMs: 0, versions: 1, forMs: 1000, relist: false }), 30);
      scheduler.schedule(
        () =>
          stale.get('a').subscribe((read) => {
            outcomes.push(`read v=${read.data?.['v']}`);
            // An update from the stale read carries its resourceVersion: the truth refuses it.
            stale.replace({ ...read, data: { v: 'from a stale read' } }).subscribe({
              next: () => outcomes.push('replaced'),
              error: (error: unknown) => outcomes.push(`conflict: ${apiErrors.isConflict(error)}`),
            });
          }),
        40,
      );
      scheduler.schedule(() => link.heal(), 100);
      scheduler.schedule(() => stale.get('a').subscribe((read) => outcomes.push(`healed v=${read.data?.['v']}`)), 110);
      scheduler.schedule(() => cluster.close(), 500);
    });
    expect(outcomes).to.deep.equal(['read v=1', 'conflict: true', 'healed v=2']);
  });

  it('travels back in time once with relist: the watch ends with 410 and the informer relists the lagging view', () => {
    const scheduler = testScheduler();
    const seen: string[] = [];
    scheduler.run(() => {
      const cluster = virtualCluster({ scheduler });
      const link = laggingLink(cluster);
      const writes = resourceClient<V1ConfigMap>(cluster, CONFIG_MAP, { namespace: 'default' });
      const stale = informer<V1ConfigMap>(link, CONFIG_MAP, { namespace: 'default', scheduler });
      const subscription = stale.events$.subscribe();
      scheduler.schedule(() => {
        subscription.unsubscribe();
        cluster.close();
      }, 500);
      scheduler.schedule(() => writes.create(config('a', { v: '1' })).subscribe(), 10);
      scheduler.schedule(() => writes.create(config('b', { v: '1' })).subscribe(), 20);
      scheduler.schedule(
        () => link.staleView({ lagMs: 0, versions: 1, forMs: 1000, relist: true, watchLag: 'versions' }),
        50,
      );
      // The truth moves on at 300: the watch, one resourceVersion behind, then delivers b.
      scheduler.schedule(() => writes.create(config('c', { v: '1' })).subscribe(), 300);
      for (const at of [40, 200, 310]) scheduler.schedule(() => seen.push(`${at} [${versions(stale.current())}]`), at);
    });
    // After the failover the informer relisted one resourceVersion back: b, created last, is gone until the truth
    // is one resourceVersion past it.
    expect(seen).to.deep.equal(['40 [a=1 b=1]', '200 [a=1]', '310 [a=1 b=1]']);
  });
});

describe('objectPath: which reads of a lagging view are reads of one object', () => {
  it('names the collection and the object for namespaced, cluster-scoped and grouped paths, and a Namespace', () => {
    expect(objectPath('/api/v1/namespaces/default/configmaps/a')).to.deep.equal({
      collection: '/api/v1/namespaces/default/configmaps',
      name: 'a',
    });
    expect(objectPath('/api/v1/nodes/n1')).to.deep.equal({ collection: '/api/v1/nodes', name: 'n1' });
    expect(objectPath('/apis/apps/v1/namespaces/x/deployments/web?pretty=true')).to.deep.equal({
      collection: '/apis/apps/v1/namespaces/x/deployments',
      name: 'web',
    });
    expect(objectPath('/api/v1/namespaces/kube-system')).to.deep.equal({
      collection: '/api/v1/namespaces',
      name: 'kube-system',
    });
  });

  it('leaves collections, subresources and other paths to the truth', () => {
    for (const path of [
      '/api/v1/namespaces/default/configmaps',
      '/api/v1/nodes',
      '/api/v1/namespaces/default/pods/p/status',
      '/apis/apps/v1',
      '/version',
    ])
      expect(objectPath(path), path).to.equal(undefined);
  });
});
