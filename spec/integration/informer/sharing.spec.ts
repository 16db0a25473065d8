/**
 * Sharing and lifecycle over real HTTP: a factory opens one watch per key, a late subscriber gets the cache
 * replayed as `added`, and unsubscribing closes the connection on the server side.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Subscription } from 'rxjs';
import { informer, informerFactory } from '../../../src/informer/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { expectConverged, foldEvents, podLister, record, waitFor, type Recording } from './support.js';
import { podWriter, type PodWriter } from './writes.js';

const PODS = { apiVersion: 'v1', kind: 'Pod' } as const;

describe('informer integration: sharing and lifecycle', () => {
  let cluster: TestCluster;
  let pods: PodWriter;
  let listPods: () => Promise<V1Pod[]>;
  let subscriptions: Subscription;
  let ns = 0;

  before(async () => {
    cluster = await startTestCluster({ bookmarkIntervalMs: 200, namespaces: ['s-0', 's-1', 's-2', 's-3'] });
    listPods = podLister(cluster);
  });
  beforeEach(async () => {
    pods = podWriter(cluster, `s-${ns++}`);
    subscriptions = new Subscription();
    // A previous case's watches close asynchronously (socket close); start from a server with none open.
    await waitFor(() => openWatches() === 0, 'no open watches left from the previous case');
  });
  afterEach(() => subscriptions.unsubscribe());
  after(() => cluster.stop());

  /**
   * How many watches are open on the server. Writing a bad line is the server's only non-closing per-stream hook;
   * the informers it hits report it and resume, which is harmless here.
   */
  const openWatches = (): number => cluster.faults.injectMalformedLine();
  const keep = <T extends Recording<V1Pod>>(recording: T): T => {
    subscriptions.add(recording.subscription);
    return recording;
  };

  it('opens one watch for two for() calls with the same key, and a second one for a different selector', async () => {
    const factory = informerFactory(cluster.kubeConfig);
    // One watch has one random source: views of it pass the same one (another would be refused).
    const random = (): number => 0.01;
    const first = factory.for<V1Pod>(PODS, { random });
    const second = factory.for<V1Pod>(PODS, { random });
    const a = keep(record(first));
    const b = keep(record(second));
    await waitFor(() => first.current().synced && second.current().synced, 'both views to sync');
    // Created after the sync, so it can only arrive through a watch: once both views have it, the watch is open.
    await pods.create('shared-1');
    await waitFor(
      () => a.of('added', 's-0/shared-1').length === 1 && b.of('added', 's-0/shared-1').length === 1,
      'the live event on both views',
    );
    await expectConverged(first, a, listPods);
    await expectConverged(second, b, listPods);
    expect(factory.active).to.equal(1);
    expect(first.current(), 'one store behind both views').to.equal(second.current());
    expect(openWatches(), 'watches open on the server for one key').to.equal(1);
    const labelled = factory.for<V1Pod>(PODS, { random, labelSelector: 'team=x' });
    const c = keep(record(labelled));
    await waitFor(() => labelled.current().synced, 'the labelled view to sync');
    await pods.create('shared-2', { team: 'x' });
    await waitFor(
      () => c.of('added', 's-0/shared-2').length === 1 && a.of('added', 's-0/shared-2').length === 1,
      'the live event on both keys',
    );
    await expectConverged(first, a, listPods);
    expect(factory.active).to.equal(2);
    expect(openWatches(), 'watches open on the server for two keys').to.equal(2);
    expect(c.lists()).to.equal(1);
  });

  it('replays the cache to a late subscriber as added events, then delivers live events without duplicates', async () => {
    for (const name of ['early-1', 'early-2', 'early-3']) await pods.create(name);
    const podInformer = informer<V1Pod>(cluster.kubeConfig, PODS, { random: () => 0.01 });
    const first = keep(record(podInformer));
    await pods.create('before-late');
    await expectConverged(podInformer, first, listPods);
    const listsBefore = first.lists();
    const late = keep(record(podInformer));
    const replayed = late.events.length;
    expect(replayed, 'the whole cache, synchronously on subscribe').to.equal(podInformer.current().size);
    expect(late.events.every((e) => e.type === 'added')).to.equal(true);
    expect(first.lists(), 'the late subscriber shares the running watch: no new list').to.equal(listsBefore);
    await pods.relabel('early-1', { late: 'seen' });
    await pods.remove('early-2');
    await pods.create('after-late');
    await expectConverged(podInformer, late, listPods);
    await expectConverged(podInformer, first, listPods);
    expect(foldEvents(late.events)).to.deep.equal(foldEvents(first.events));
  });

  it('closes the watch connection on the server when the last subscriber unsubscribes', async () => {
    const podInformer = informer<V1Pod>(cluster.kubeConfig, PODS, { random: () => 0.01 });
    const recording = record(podInformer);
    await waitFor(() => podInformer.current().synced, 'the initial sync');
    await pods.create('proves-the-watch-is-open');
    await waitFor(() => recording.of('added', `s-2/proves-the-watch-is-open`).length === 1, 'the live event');
    expect(openWatches()).to.equal(1);
    recording.subscription.unsubscribe();
    // The server removes a stream only when its socket closes, so this fails if the request was not aborted.
    await waitFor(() => openWatches() === 0, 'the server to see the watch connection close');
  });
});
