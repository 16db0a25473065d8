/**
 * Informer options and resource shapes over real HTTP: metadataOnly, label selectors, a namespace-scoped
 * informer, a cluster-scoped kind and a CustomResourceDefinition, each converging through a watch drop.
 */
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { informer, type Informer } from '../../../src/informer/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import type { ResourceRef } from '../../../src/watch/index.js';
import { expectConverged, podLister, record, waitFor, type Recording } from './support.js';
import { podWriter } from './writes.js';

describe('informer integration: options and resource kinds', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  let running: Recording<KubernetesObject> | undefined;

  before(async () => {
    cluster = await startTestCluster({ bookmarkIntervalMs: 200, namespaces: ['team-a', 'team-b', 'meta', 'labels'] });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(() => {
    running?.subscription.unsubscribe();
    running = undefined;
  });
  after(() => cluster.stop());

  const start = async <T extends KubernetesObject>(
    resource: ResourceRef,
    options: Parameters<typeof informer<T>>[2] = {},
  ): Promise<[Informer<T>, Recording<T>]> => {
    const created = informer<T>(cluster.kubeConfig, resource, { random: () => 0.01, ...options });
    const recording = record(created);
    running = recording as unknown as Recording<KubernetesObject>;
    await waitFor(() => created.current().synced, `the initial sync of ${resource.kind}`);
    return [created, recording];
  };
  /** Cuts the watch (retrying until one is open) so convergence below also covers a resume. */
  const dropWatch = (): Promise<void> =>
    waitFor(() => cluster.faults.dropWatches({ mode: 'abrupt' }) === 1, 'an open watch');

  it('caches PartialObjectMetadata with metadataOnly and keeps it in step with the server', async () => {
    const pods = podWriter(cluster, 'meta');
    await pods.create('m1', { tier: 'x' });
    const [metaInformer, recording] = await start<KubernetesObject>(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: 'meta', metadataOnly: true },
    );
    await pods.create('m2');
    await dropWatch();
    await pods.relabel('m1', { tier: 'y' });
    await expectConverged(metaInformer, recording, podLister(cluster, 'meta'));
    for (const object of metaInformer.current()) {
      expect(object.kind).to.equal('PartialObjectMetadata');
      expect(object).not.to.have.property('spec');
    }
    expect(metaInformer.current().get('meta/m1')?.metadata?.labels).to.deep.equal({ tier: 'y' });
  });

  it('follows a label selector: objects that start or stop matching arrive as added and deleted', async () => {
    const pods = podWriter(cluster, 'labels');
    await pods.create('web-1', { app: 'web' });
    await pods.create('db-1', { app: 'db' });
    const [web, recording] = await start<V1Pod>({ apiVersion: 'v1', kind: 'Pod' }, { labelSelector: 'app=web' });
    const listWeb = async () => (await core.listPodForAllNamespaces({ labelSelector: 'app=web' })).items;
    await pods.relabel('db-1', { app: 'web' });
    await pods.relabel('web-1', { app: 'db' });
    await dropWatch();
    await pods.create('web-2', { app: 'web' });
    await expectConverged(web, recording, listWeb);
    expect([...web.current().entries()].map(([key]) => key).sort()).to.deep.equal(['labels/db-1', 'labels/web-2']);
    expect(recording.of('added', 'labels/db-1')).to.have.length(1);
    expect(recording.of('deleted', 'labels/web-1').map((e) => e.type === 'deleted' && e.stateUnknown)).to.deep.equal([
      false,
    ]);
  });

  it('watches one namespace only when namespace-scoped', async () => {
    const a = podWriter(cluster, 'team-a');
    const b = podWriter(cluster, 'team-b');
    await a.create('a1');
    await b.create('b1');
    const [teamA, recording] = await start<V1Pod>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: 'team-a' });
    await b.create('b2');
    await a.create('a2');
    await dropWatch();
    await a.remove('a1');
    await b.remove('b1');
    await expectConverged(teamA, recording, podLister(cluster, 'team-a'));
    expect([...teamA.current().entries()].map(([key]) => key)).to.deep.equal(['team-a/a2']);
    expect(recording.events.every((e) => e.key.startsWith('team-a/'))).to.equal(true);
  });

  it('keys a cluster-scoped kind by name and converges through a watch drop', async () => {
    const node = (name: string): V1Node => ({ metadata: { name, labels: { pool: 'p' } } });
    await core.createNode({ body: node('n1') });
    const [nodes, recording] = await start<V1Node>({ apiVersion: 'v1', kind: 'Node' });
    await core.createNode({ body: node('n2') });
    await dropWatch();
    await core.deleteNode({ name: 'n1' });
    await core.createNode({ body: node('n3') });
    await expectConverged(nodes, recording, async () => (await core.listNode()).items);
    expect([...nodes.current().entries()].map(([key]) => key).sort()).to.deep.equal(['n2', 'n3']);
  });

  it('resolves a CRD through discovery and follows its custom objects', async () => {
    const ext = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    await ext.createCustomResourceDefinition({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    });
    const ref = { group: 'example.com', version: 'v1', plural: 'gadgets' };
    const gadget = (name: string, size: number) => ({
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name },
      spec: { size },
    });
    const create = (name: string, size: number) =>
      custom.createNamespacedCustomObject({ ...ref, namespace: 'default', body: gadget(name, size) });
    const list = async (): Promise<KubernetesObject[]> =>
      ((await custom.listClusterCustomObject(ref)) as { items: KubernetesObject[] }).items;
    await create('g1', 1);
    const [gadgets, recording] = await start<KubernetesObject>({ apiVersion: 'example.com/v1', kind: 'Gadget' });
    await create('g2', 2);
    await dropWatch();
    await custom.deleteNamespacedCustomObject({ ...ref, namespace: 'default', name: 'g1' });
    await create('g3', 3);
    await expectConverged(gadgets, recording, list);
    expect([...gadgets.current().entries()].map(([key]) => key).sort()).to.deep.equal(['default/g2', 'default/g3']);
  });
});
