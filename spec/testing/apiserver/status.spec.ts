import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { deploymentBody, failure, podBody, send } from './helpers.js';

describe('in-memory API server: status subresource', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  before(async () => {
    cluster = await startTestCluster();
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  });
  after(() => cluster.stop());

  it('wipes a deployment status sent on create and sets pods to Pending', async () => {
    const body = { ...deploymentBody('wiped'), status: { replicas: 7, readyReplicas: 7 } };
    const created = await apps.createNamespacedDeployment({ namespace: 'default', body });
    expect(created.status).to.deep.equal({});
    const pod = await core.createNamespacedPod({
      namespace: 'default',
      body: { ...podBody('pending'), status: { phase: 'Running' } },
    });
    expect(pod.status?.phase).to.equal('Pending');
    expect(pod.status?.qosClass).to.equal('BestEffort');
  });

  it('ignores status changes sent to the main endpoint', async () => {
    const created = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: deploymentBody('main-ignores'),
    });
    const updated = await apps.replaceNamespacedDeployment({
      namespace: 'default',
      name: 'main-ignores',
      body: { ...created, status: { replicas: 3 } },
    });
    expect(updated.status).to.deep.equal({});
    expect(updated.metadata?.resourceVersion).to.equal(created.metadata?.resourceVersion);
  });

  it('changes only status through /status, without bumping generation', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('via-status') });
    const updated = await apps.replaceNamespacedDeploymentStatus({
      namespace: 'default',
      name: 'via-status',
      body: {
        ...created,
        metadata: { ...created.metadata, labels: { ignored: 'yes' } },
        spec: { ...created.spec!, replicas: 9 },
        status: { replicas: 1, observedGeneration: 1 },
      },
    });
    expect(updated.status).to.deep.equal({ replicas: 1, observedGeneration: 1 });
    expect(updated.spec?.replicas).to.equal(1);
    expect(updated.metadata?.labels).to.equal(undefined);
    expect(updated.metadata?.generation).to.equal(1);
    expect(Number(updated.metadata?.resourceVersion)).to.be.greaterThan(Number(created.metadata?.resourceVersion));
  });

  it('applies optimistic concurrency to status writes too', async () => {
    const created = await core.createNamespacedPod({ namespace: 'default', body: podBody('status-occ') });
    await core.replaceNamespacedPodStatus({
      namespace: 'default',
      name: 'status-occ',
      body: { ...created, status: { phase: 'Running' } },
    });
    const stale = await send(cluster, 'PUT', '/api/v1/namespaces/default/pods/status-occ/status', {
      ...created,
      status: { phase: 'Failed' },
    });
    expect(stale.status).to.equal(409);
  });

  it('serves no status subresource for configmaps', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'nostatus' } } });
    const res = await send(cluster, 'GET', '/api/v1/namespaces/default/configmaps/nostatus/status');
    expect(res.status).to.equal(404);
  });

  it('applies the built-in defaults controllers rely on', async () => {
    const body = deploymentBody('defaulted');
    delete body.spec.replicas;
    const deploy = await apps.createNamespacedDeployment({ namespace: 'default', body });
    expect(deploy.spec?.replicas).to.equal(1);
    expect(deploy.spec?.strategy).to.deep.equal({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    const pod = await core.createNamespacedPod({ namespace: 'default', body: podBody('defaulted') });
    expect(pod.spec).to.deep.include({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
    });
    expect(pod.spec?.containers[0]).to.deep.include({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    const replaced = await core.replaceNamespacedPod({ namespace: 'default', name: 'defaulted', body: pod });
    expect(replaced.metadata?.resourceVersion).to.equal(pod.metadata?.resourceVersion);
  });

  it('serves the scale subresource of deployments: read, patch and replace spec.replicas only', async () => {
    await apps.createNamespacedDeployment({ namespace: 'default', body: deploymentBody('scaled', 2) });
    const scale = await apps.readNamespacedDeploymentScale({ namespace: 'default', name: 'scaled' });
    expect(scale.spec?.replicas).to.equal(2);
    expect(scale.status?.selector).to.equal('app=scaled');
    const patched = await send(
      cluster,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/scaled/scale',
      { spec: { replicas: 4 } },
      'application/merge-patch+json',
    );
    expect(patched.body).to.deep.include({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 } });
    const stale = await failure(
      apps.replaceNamespacedDeploymentScale({
        namespace: 'default',
        name: 'scaled',
        body: { ...scale, spec: { replicas: 5 } },
      }),
    );
    expect(stale.code).to.equal(409);
    const fresh = await apps.readNamespacedDeploymentScale({ namespace: 'default', name: 'scaled' });
    const replaced = await apps.replaceNamespacedDeploymentScale({
      namespace: 'default',
      name: 'scaled',
      body: { ...fresh, spec: { replicas: 5 } },
    });
    expect(replaced.spec?.replicas).to.equal(5);
    const deploy = await apps.readNamespacedDeployment({ namespace: 'default', name: 'scaled' });
    expect(deploy.spec?.replicas).to.equal(5);
    expect(deploy.metadata?.generation).to.equal(3);
    const negative = await send(
      cluster,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/scaled/scale',
      { spec: { replicas: -1 } },
      'application/merge-patch+json',
    );
    expect(negative.status).to.equal(422);
    const discovery = (await send(cluster, 'GET', '/apis/apps/v1')).body;
    expect(discovery.resources.find((r: any) => r.name === 'deployments/scale')).to.deep.include({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
  });

  it('allocates a cluster IP to a new service and keeps it across updates that omit it', async () => {
    const svc = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
    });
    expect(svc.spec?.clusterIP).to.match(/^10\.96\.\d+\.\d+$/);
    expect(svc.spec?.clusterIPs).to.deep.equal([svc.spec?.clusterIP]);
    expect(svc.spec?.ports?.[0]).to.deep.include({ port: 80, protocol: 'TCP', targetPort: 80 });
    const updated = await core.replaceNamespacedService({
      namespace: 'default',
      name: 'web',
      body: {
        metadata: { name: 'web', resourceVersion: svc.metadata?.resourceVersion },
        spec: { selector: { app: 'web2' }, ports: [{ port: 80 }] },
      },
    });
    expect(updated.spec?.clusterIP).to.equal(svc.spec?.clusterIP);
  });

  it('keeps a node status on create, since kubelets register nodes with it', async () => {
    const node = await core.createNode({ body: { metadata: { name: 'n1' }, status: { capacity: { cpu: '2' } } } });
    expect(node.status?.capacity).to.deep.equal({ cpu: '2' });
  });
});
