import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { deploymentBody, send } from './helpers.js';

describe('in-memory API server: opt-in owner garbage collection', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  before(async () => {
    cluster = await startTestCluster({ ownerGC: true });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  });
  after(() => cluster.stop());

  async function ownedConfigMap(name: string, owner: { metadata?: { name?: string; uid?: string } }) {
    return core.createNamespacedConfigMap({
      namespace: 'default',
      body: {
        metadata: {
          name,
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'Deployment', name: owner.metadata!.name!, uid: owner.metadata!.uid! },
          ],
        },
      },
    });
  }
  const exists = async (name: string) =>
    (await core.listNamespacedConfigMap({ namespace: 'default', fieldSelector: `metadata.name=${name}` })).items
      .length > 0;

  it('deletes dependents once their owner is gone (Background)', async () => {
    const owner = await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('bg-owner') });
    await ownedConfigMap('bg-child', owner);
    await apps.deleteNamespacedDeployment({ namespace: 'default', name: 'bg-owner' });
    expect(await exists('bg-child')).to.equal(false);
  });

  it('removes the owner only after its dependents for Foreground deletion', async () => {
    const owner = await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('fg-owner') });
    await ownedConfigMap('fg-child', owner);
    const res = await send(cluster, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/fg-owner', {
      propagationPolicy: 'Foreground',
    });
    expect(res.body.metadata.finalizers).to.deep.equal(['foregroundDeletion']);
    expect(await exists('fg-child')).to.equal(false);
    expect((await send(cluster, 'GET', '/apis/apps/v1/namespaces/default/deployments/fg-owner')).status).to.equal(404);
  });

  it('keeps dependents and drops their owner references for Orphan deletion', async () => {
    const owner = await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('or-owner') });
    await ownedConfigMap('or-child', owner);
    await send(cluster, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/or-owner', {
      propagationPolicy: 'Orphan',
    });
    const child = await core.readNamespacedConfigMap({ namespace: 'default', name: 'or-child' });
    expect(child.metadata?.ownerReferences).to.equal(undefined);
    expect((await send(cluster, 'GET', '/apis/apps/v1/namespaces/default/deployments/or-owner')).status).to.equal(404);
  });
});
