import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { deploymentBody, failure, send } from './helpers.js';

describe('in-memory API server: PATCH', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  before(async () => {
    cluster = await startTestCluster();
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'p', labels: { a: '1' } }, data: { x: '1', y: '2' } },
    });
  });
  after(() => cluster.stop());

  it('applies a JSON merge patch', async () => {
    const patched = await core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'p', body: { data: { y: null, z: '3' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.data).to.deep.equal({ x: '1', z: '3' });
  });

  it('applies a JSON patch, and answers 422 when a test operation fails', async () => {
    const patched = await core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'p', body: [{ op: 'add', path: '/metadata/labels/b', value: '2' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(patched.metadata?.labels).to.deep.equal({ a: '1', b: '2' });
    const failed = await send(
      cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/p',
      [{ op: 'test', path: '/data/x', value: 'nope' }],
      'application/json-patch+json',
    );
    expect(failed.status).to.equal(422);
  });

  it('applies a strategic merge patch to built-ins, merging containers by name', async () => {
    await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('smp') });
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'main', image: 'busybox:2' },
              { name: 'side', image: 'envoy' },
            ],
          },
        },
      },
    };
    const patched = await apps.patchNamespacedDeployment(
      { namespace: 'default', name: 'smp', body: patch },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(patched.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).to.deep.equal([
      'main=busybox:2',
      'side=envoy',
    ]);
    expect(patched.metadata?.generation).to.equal(2);
  });

  it('serves server-side apply through the ordinary PATCH handler with application/apply-patch+yaml', async () => {
    const res = await send(
      cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/p?fieldManager=t',
      '{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}',
      'application/apply-patch+yaml',
    );
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.include({ a: '1' });
    expect(res.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).to.include('t');
  });

  it('keeps managedFields a merge patch leaves alone, and strips them when it writes [{}] over them', async () => {
    const path = '/api/v1/namespaces/default/configmaps/mf';
    await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps?fieldManager=creator', {
      metadata: { name: 'mf' },
      data: { a: '1' },
    });
    const kept = await send(
      cluster,
      'PATCH',
      `${path}?fieldManager=editor`,
      { metadata: { labels: { l: '1' } } },
      'application/merge-patch+json',
    );
    expect(kept.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).to.deep.equal([
      'creator',
      'editor',
    ]);
    const stripped = await send(
      cluster,
      'PATCH',
      `${path}?fieldManager=editor`,
      { metadata: { managedFields: [{}] } },
      'application/merge-patch+json',
    );
    expect(stripped.status).to.equal(200);
    expect(stripped.body.metadata.managedFields).to.equal(undefined);
    expect((await send(cluster, 'GET', path)).body.metadata.managedFields).to.equal(undefined);
  });

  it('rejects an unknown patch content type with 415', async () => {
    const res = await send(cluster, 'PATCH', '/api/v1/namespaces/default/configmaps/p', '{}', 'text/plain');
    expect(res.status).to.equal(415);
  });

  it('answers 409 when the patch carries a stale resourceVersion', async () => {
    const { code, body } = await failure(
      core.patchNamespacedConfigMap(
        { namespace: 'default', name: 'p', body: { metadata: { resourceVersion: '1' }, data: { q: 'q' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(code).to.equal(409);
    expect(body.reason).to.equal('Conflict');
  });

  it('answers 400 to a patch body that is not JSON, and 404 for a missing object', async () => {
    const bad = await send(
      cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/p',
      '{nope',
      'application/merge-patch+json',
    );
    expect(bad.status).to.equal(400);
    const missing = await send(
      cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/ghost',
      '{}',
      'application/merge-patch+json',
    );
    expect(missing.status).to.equal(404);
  });

  it('obeys the status subresource rules: main-endpoint patches cannot change status', async () => {
    await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('patch-status') });
    const main = await send(
      cluster,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/patch-status',
      { status: { replicas: 5 } },
      'application/merge-patch+json',
    );
    expect(main.body.status).to.deep.equal({});
    const viaStatus = await send(
      cluster,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/patch-status/status',
      { status: { replicas: 5 } },
      'application/merge-patch+json',
    );
    expect(viaStatus.body.status).to.deep.equal({ replicas: 5 });
    expect(viaStatus.body.metadata.generation).to.equal(1);
  });
});
