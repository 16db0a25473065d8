import { ApiextensionsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { clientWatch, failure, send, until } from './helpers.js';

// Schema extensions in client-node's spelling (`x_kubernetes_…`): its typed client drops keys it does not know, and
// a schema-less `type: object` would then prune every field, as the real server does.
function widgetCrd(scope: 'Namespaced' | 'Cluster' = 'Namespaced', plural = 'widgets', kind = 'Widget'): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [plural.slice(0, 2)] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
        },
      ],
    },
  };
}

describe('in-memory API server: CustomResourceDefinitions', () => {
  let cluster: TestCluster;
  let ext: ApiextensionsV1Api;
  let custom: CustomObjectsApi;

  before(async () => {
    cluster = await startTestCluster();
    ext = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
    custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  });
  after(() => cluster.stop());

  it('marks a new CRD NamesAccepted and Established and serves it in discovery', async () => {
    const crd = await ext.createCustomResourceDefinition({ body: widgetCrd() });
    const conditions = Object.fromEntries((crd.status?.conditions ?? []).map((c) => [c.type, c.status]));
    expect(conditions).to.deep.equal({ NamesAccepted: 'True', Established: 'True' });
    expect(crd.status?.acceptedNames).to.deep.include({ plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' });
    expect(crd.status?.storedVersions).to.deep.equal(['v1']);
    const groups = (await send(cluster, 'GET', '/apis')).body;
    expect(groups.groups.find((g: any) => g.name === 'example.com')).to.deep.include({
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
    });
    const v1 = (await send(cluster, 'GET', '/apis/example.com/v1')).body;
    expect(v1.resources.map((r: any) => r.name)).to.deep.equal(['widgets', 'widgets/status']);
    const beta = (await send(cluster, 'GET', '/apis/example.com/v1beta1')).body;
    expect(beta.resources.map((r: any) => r.name)).to.deep.equal(['widgets']);
  });

  it('serves custom resources with generation, status subresource rules and version rewriting', async () => {
    const created = await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 1 },
        status: { ready: true },
      },
    });
    expect(created.metadata.generation).to.equal(1);
    expect(created.status).to.equal(undefined);
    const statusUpdate = await custom.replaceNamespacedCustomObjectStatus({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
      body: { ...created, status: { ready: true } },
    });
    expect(statusUpdate.status).to.deep.equal({ ready: true });
    expect(statusUpdate.metadata.generation).to.equal(1);
    const specUpdate = await custom.replaceNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
      body: { ...statusUpdate, spec: { size: 2 } },
    });
    expect(specUpdate.metadata.generation).to.equal(2);
    const asBeta = await custom.getNamespacedCustomObject({
      group: 'example.com',
      version: 'v1beta1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
    });
    expect(asBeta.apiVersion).to.equal('example.com/v1beta1');
  });

  it('requires resourceVersion on custom resource updates, like the real server', async () => {
    const { code, body } = await failure(
      custom.replaceNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        name: 'w1',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: {} },
      }),
    );
    expect(code).to.equal(422);
    expect(body.message).to.equal(
      'widgets.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
  });

  it('refuses strategic merge patch on custom resources with 415 and accepts merge patch', async () => {
    const smp = await send(
      cluster,
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/w1',
      { spec: { size: 3 } },
      'application/strategic-merge-patch+json',
    );
    expect(smp.status).to.equal(415);
    expect(smp.body.reason).to.equal('UnsupportedMediaType');
    const merged = await custom.patchNamespacedCustomObject(
      {
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        name: 'w1',
        body: { spec: { size: 3 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merged.spec).to.deep.equal({ size: 3 });
  });

  it('serves cluster-scoped custom resources', async () => {
    await ext.createCustomResourceDefinition({ body: widgetCrd('Cluster', 'gadgets', 'Gadget') });
    const created = await custom.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'gadgets',
      body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' } },
    });
    expect(created.metadata.namespace).to.equal(undefined);
    const namespaced = await send(cluster, 'GET', '/apis/example.com/v1/namespaces/default/gadgets');
    expect(namespaced.status).to.equal(404);
  });

  it('rejects a CRD whose name is not plural.group with 422', async () => {
    const body = widgetCrd('Namespaced', 'things', 'Thing');
    body.metadata.name = 'wrong.example.com';
    const { code, body: status } = await failure(ext.createCustomResourceDefinition({ body }));
    expect(code).to.equal(422);
    expect(status.details.causes.map((c: any) => c.field)).to.include('metadata.name');
  });

  it('deletes every instance, then the CRD, and stops serving it', async () => {
    const watch = await clientWatch(cluster.kubeConfig, '/apis/example.com/v1/widgets', {
      resourceVersion: cluster.resourceVersion(),
    });
    await ext.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
    await until(() => watch.events.some((e) => e.type === 'DELETED'), 'instance DELETED');
    watch.stop();
    expect((await failure(ext.readCustomResourceDefinition({ name: 'widgets.example.com' }))).code).to.equal(404);
    const gone = await send(cluster, 'GET', '/apis/example.com/v1/namespaces/default/widgets');
    // No CRD defines it any more: the mux's text/plain 404, as apiextensions delegates.
    expect([gone.status, gone.body]).to.deep.equal([404, '404 page not found\n']);
    const v1 = (await send(cluster, 'GET', '/apis/example.com/v1')).body;
    expect(v1.resources.map((r: any) => r.name)).to.deep.equal(['gadgets', 'gadgets/status']);
  });
});
