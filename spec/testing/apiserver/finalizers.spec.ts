import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { clientWatch, failure, podBody, send, until } from './helpers.js';

describe('in-memory API server: finalizers and graceful deletion', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;

  before(async () => {
    cluster = await startTestCluster({ namespaces: ['fin'] });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  });
  after(() => cluster.stop());

  it('marks an object with finalizers as deleting, then removes it when the last finalizer goes', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'fin',
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/fin/configmaps', {
      fieldSelector: 'metadata.name=held',
    });
    await until(() => watch.events.length === 1, 'initial ADDED');
    const deleting = (await send(cluster, 'DELETE', '/api/v1/namespaces/fin/configmaps/held')).body;
    expect(deleting.metadata.deletionTimestamp).to.be.a('string');
    expect(deleting.metadata.deletionGracePeriodSeconds).to.equal(0);
    const stillThere = await core.readNamespacedConfigMap({ namespace: 'fin', name: 'held' });
    expect(stillThere.metadata?.deletionTimestamp).to.be.instanceOf(Date);
    await core.replaceNamespacedConfigMap({
      namespace: 'fin',
      name: 'held',
      body: { ...stillThere, metadata: { ...stillThere.metadata, finalizers: [] } },
    });
    await until(() => watch.events.length === 3, 'MODIFIED then DELETED');
    watch.stop();
    expect(watch.events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
    expect((await failure(core.readNamespacedConfigMap({ namespace: 'fin', name: 'held' }))).code).to.equal(404);
  });

  it('rejects new finalizers on an object being deleted with 422', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'fin',
      body: { metadata: { name: 'nomore', finalizers: ['a.io/x'] } },
    });
    await core.deleteNamespacedConfigMap({ namespace: 'fin', name: 'nomore' });
    const current = await core.readNamespacedConfigMap({ namespace: 'fin', name: 'nomore' });
    const { code, body } = await failure(
      core.replaceNamespacedConfigMap({
        namespace: 'fin',
        name: 'nomore',
        body: { ...current, metadata: { ...current.metadata, finalizers: ['a.io/x', 'b.io/y'] } },
      }),
    );
    expect(code).to.equal(422);
    expect(body.details.causes[0].field).to.equal('metadata.finalizers');
    expect(body.message).to.include(
      'no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
    );
  });

  it('answers a repeated delete of a deleting object with the object, unchanged', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'fin',
      body: { metadata: { name: 'twice', finalizers: ['a.io/x'] } },
    });
    const first = (await send(cluster, 'DELETE', '/api/v1/namespaces/fin/configmaps/twice')).body;
    const second = (await send(cluster, 'DELETE', '/api/v1/namespaces/fin/configmaps/twice')).body;
    expect(first.metadata.deletionTimestamp).to.be.a('string');
    expect(second.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
  });

  it('adds the foregroundDeletion or orphan finalizer for those propagation policies', async () => {
    await core.createNamespacedConfigMap({ namespace: 'fin', body: { metadata: { name: 'fg' } } });
    const fg = (
      await send(cluster, 'DELETE', '/api/v1/namespaces/fin/configmaps/fg', { propagationPolicy: 'Foreground' })
    ).body;
    expect(fg.metadata.finalizers).to.deep.equal(['foregroundDeletion']);
    await core.createNamespacedConfigMap({ namespace: 'fin', body: { metadata: { name: 'orphan' } } });
    const orphan = (await send(cluster, 'DELETE', '/api/v1/namespaces/fin/configmaps/orphan?propagationPolicy=Orphan'))
      .body;
    expect(orphan.metadata.finalizers).to.deep.equal(['orphan']);
  });

  it('deletes an unscheduled pod at once', async () => {
    await core.createNamespacedPod({ namespace: 'fin', body: podBody('unscheduled') });
    await core.deleteNamespacedPod({ namespace: 'fin', name: 'unscheduled' });
    expect((await failure(core.readNamespacedPod({ namespace: 'fin', name: 'unscheduled' }))).code).to.equal(404);
  });

  it('keeps a scheduled pod for its grace period until a zero-grace delete, as without a kubelet', async () => {
    const body = podBody('scheduled');
    body.spec.nodeName = 'node-a';
    await core.createNamespacedPod({ namespace: 'fin', body });
    const graceful = await core.deleteNamespacedPod({ namespace: 'fin', name: 'scheduled' });
    expect(graceful.metadata?.deletionGracePeriodSeconds).to.equal(30);
    expect(graceful.metadata?.deletionTimestamp).to.be.instanceOf(Date);
    const shorter = await core.deleteNamespacedPod({ namespace: 'fin', name: 'scheduled', gracePeriodSeconds: 5 });
    expect(shorter.metadata?.deletionGracePeriodSeconds).to.equal(5);
    const removed = await send(cluster, 'DELETE', '/api/v1/namespaces/fin/pods/scheduled', { gracePeriodSeconds: 0 });
    expect(removed.body.kind).to.equal('Pod');
    expect(removed.body.metadata.deletionGracePeriodSeconds).to.equal(0);
    expect((await failure(core.readNamespacedPod({ namespace: 'fin', name: 'scheduled' }))).code).to.equal(404);
  });

  it('rejects changes to immutable pod spec fields with 422', async () => {
    const pod = await core.createNamespacedPod({ namespace: 'fin', body: podBody('immutable') });
    const { code, body } = await failure(
      core.replaceNamespacedPod({
        namespace: 'fin',
        name: 'immutable',
        body: { ...pod, spec: { ...pod.spec!, nodeName: 'elsewhere' } },
      }),
    );
    expect(code).to.equal(422);
    expect(body.details.causes[0].field).to.equal('spec');
    const image = await core.replaceNamespacedPod({
      namespace: 'fin',
      name: 'immutable',
      body: { ...pod, spec: { ...pod.spec!, containers: [{ ...pod.spec!.containers[0]!, image: 'busybox:2' }] } },
    });
    expect(image.spec?.containers[0]?.image).to.equal('busybox:2');
  });
});
