import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { clientWatch, failure, send, until } from './helpers.js';

describe('in-memory API server: namespace lifecycle', () => {
  describe('without the namespace controller (the default, like a bare kube-apiserver)', () => {
    let cluster: TestCluster;
    let core: CoreV1Api;

    before(async () => {
      cluster = await startTestCluster();
      core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    });
    after(() => cluster.stop());

    it('creates namespaces Active with the kubernetes finalizer and the metadata.name label', async () => {
      const ns = await core.createNamespace({ body: { metadata: { name: 'fresh' } } });
      expect(ns.status?.phase).to.equal('Active');
      expect(ns.spec?.finalizers).to.deep.equal(['kubernetes']);
      expect(ns.metadata?.labels).to.deep.equal({ 'kubernetes.io/metadata.name': 'fresh' });
    });

    it('keeps a deleted namespace Terminating until /finalize empties spec.finalizers', async () => {
      await core.createNamespace({ body: { metadata: { name: 'stuck' } } });
      await core.createNamespacedConfigMap({ namespace: 'stuck', body: { metadata: { name: 'content' } } });
      await core.deleteNamespace({ name: 'stuck' });
      const terminating = await core.readNamespace({ name: 'stuck' });
      expect(terminating.status?.phase).to.equal('Terminating');
      const update = await core.replaceNamespace({ name: 'stuck', body: { ...terminating, spec: { finalizers: [] } } });
      expect(update.spec?.finalizers).to.deep.equal(['kubernetes']);
      const finalized = await send(cluster, 'PUT', '/api/v1/namespaces/stuck/finalize', {
        ...terminating,
        spec: { finalizers: [] },
      });
      expect(finalized.status).to.equal(200);
      expect((await failure(core.readNamespace({ name: 'stuck' }))).code).to.equal(404);
    });
  });

  describe('with namespaceLifecycle', () => {
    let cluster: TestCluster;
    let core: CoreV1Api;

    before(async () => {
      cluster = await startTestCluster({ namespaceLifecycle: true, namespaces: ['gone'] });
      core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    });
    after(() => cluster.stop());

    it('deletes the contents, then the namespace', async () => {
      await core.createNamespacedConfigMap({ namespace: 'gone', body: { metadata: { name: 'c1' } } });
      const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces', {
        fieldSelector: 'metadata.name=gone',
        resourceVersion: cluster.resourceVersion(),
      });
      await core.deleteNamespace({ name: 'gone' });
      await until(() => watch.events.some((e) => e.type === 'DELETED'), 'namespace DELETED');
      watch.stop();
      expect(watch.events.map((e) => e.type)).to.deep.equal(['MODIFIED', 'DELETED']);
      expect(
        (await core.listConfigMapForAllNamespaces()).items.filter((c) => c.metadata?.namespace === 'gone'),
      ).to.deep.equal([]);
    });
  });
});
