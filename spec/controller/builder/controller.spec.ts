import { expect } from 'chai';
import { AppsV1Api, CoreV1Api, type V1Pod, type V1ReplicaSet } from '@kubernetes/client-node';
import { Subject, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { controller } from '../../../src/controller/builder/index.js';
import { informerFromSource } from '../../../src/informer/index.js';
import type { ReconcileEvent } from '../../../src/controller/index.js';
import type { WatchEvent } from '../../../src/watch/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { waitFor } from '../../support/wait.js';

const pod = (name: string, owner?: string): V1Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: {
    name, namespace: 'default', resourceVersion: '1',
    ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] } : {}),
  },
});
const replicaSet = (name: string): V1ReplicaSet => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: 'default', resourceVersion: '1' }, spec: { selector: {} } as never,
});

describe('controller()', () => {
  it('keys primary events by themselves and owned events by their controller owner, in virtual time', () => {
    new TestScheduler((actual, expected) => { expect(actual).to.deep.equal(expected); }).run(({ cold, expectObservable }) => {
      const rsSource = cold<WatchEvent<V1ReplicaSet>>('a(bc)', {
        a: { type: 'relistStarted' }, b: { type: 'listed', object: replicaSet('web') }, c: { type: 'relistDone', resourceVersion: '1' },
      });
      const podSource = cold<WatchEvent<V1Pod>>('ab---c', {
        a: { type: 'relistStarted' }, b: { type: 'relistDone', resourceVersion: '1' }, c: { type: 'added', object: pod('web-x1', 'web') },
      });
      const run$ = controller<V1ReplicaSet>({
        for: informerFromSource(rsSource),
        owns: [],
        watches: [{ source: informerFromSource(podSource), map: (event) => (event.object.metadata?.ownerReferences ?? []).map((ref) => `default/${ref.name}`) }],
        reconcile: () => undefined,
        globalRateLimiter: false,
      });
      expectObservable(run$.pipe(mapType()), '^ 10ms !').toBe('-(ab)(ab)', { a: 'started', b: 'succeeded' });
    });
  });

  it('holds reconciles until every informer it uses has synced', () => {
    new TestScheduler((actual, expected) => { expect(actual).to.deep.equal(expected); }).run(({ cold, expectObservable }) => {
      const rsSource = cold<WatchEvent<V1ReplicaSet>>('a(bc)', {
        a: { type: 'relistStarted' }, b: { type: 'listed', object: replicaSet('web') }, c: { type: 'relistDone', resourceVersion: '1' },
      });
      const podSource = cold<WatchEvent<V1Pod>>('a----b', { a: { type: 'relistStarted' }, b: { type: 'relistDone', resourceVersion: '1' } });
      const run$ = controller<V1ReplicaSet>({
        for: informerFromSource(rsSource),
        watches: [{ source: informerFromSource(podSource), map: () => undefined }],
        reconcile: () => undefined,
      });
      expectObservable(run$.pipe(mapType()), '^ 10ms !').toBe('-----(ab)', { a: 'started', b: 'succeeded' });
    });
  });

  it('rejects owns without a primary resource reference with a clear error', () => {
    expect(() => controller({ for: informerFromSource(new Subject<WatchEvent>()), owns: [{ apiVersion: 'v1', kind: 'Pod' }], reconcile: () => undefined }))
      .to.throw(TypeError, 'controller: pass kubeConfig or informers to watch a resource by reference');
    expect(() => controller({ for: informerFromSource(new Subject<WatchEvent>()), owns: [informerFromSource(new Subject<WatchEvent>())], reconcile: () => undefined }))
      .to.throw(TypeError, 'controller: `owns` needs `for` given as a resource reference, to know the owner kind');
  });
});

describe('controller() against the in-memory API server', function () {
  this.timeout(20000);
  let cluster: TestCluster;
  let subscription: Subscription | undefined;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => {
    subscription?.unsubscribe();
    await cluster.stop();
  });

  it('reconciles a ReplicaSet when a pod it controls changes, reading the ReplicaSet from the store', async () => {
    const reconciled: Array<{ key: string; name: string | undefined }> = [];
    const events: ReconcileEvent[] = [];
    subscription = controller<V1ReplicaSet>({
      kubeConfig: cluster.kubeConfig,
      for: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
      owns: [{ apiVersion: 'v1', kind: 'Pod' }],
      reconcile: ({ key, object }) => {
        reconciled.push({ key, name: object?.metadata?.name });
      },
    }).subscribe((event) => events.push(event));

    const apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      },
    });
    await waitFor(() => reconciled.length === 1, 'the ReplicaSet reconcile', 10000);
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'web-1', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata!.uid!, controller: true }] },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      },
    });
    await waitFor(() => reconciled.length === 2, 'the reconcile triggered by the owned pod', 10000);
    expect(reconciled).to.deep.equal([{ key: 'default/web', name: 'web' }, { key: 'default/web', name: 'web' }]);
    const started = events.filter((event) => event.type === 'started');
    expect(started.map((event) => event.type === 'started' && event.reasons[0])).to.deep.equal(['added ReplicaSet default/web', 'added Pod default/web-1']);
  });
});

function mapType() {
  return (source: import('rxjs').Observable<ReconcileEvent>) =>
    new (source.constructor as typeof import('rxjs').Observable<string>)((subscriber) =>
      source.subscribe({ next: (event) => subscriber.next(event.type), error: (e) => subscriber.error(e), complete: () => subscriber.complete() }));
}
