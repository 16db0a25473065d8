import { AppsV1Api, CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { deploymentBody, failure, podBody, send } from './helpers.js';

describe('in-memory API server: create, read, update, delete', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  before(async () => {
    cluster = await startTestCluster({ namespaces: ['crud'] });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  });
  after(() => cluster.stop());

  it('creates the four namespaces of a real cluster plus the requested ones', async () => {
    const list = await core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name).sort()).to.deep.equal([
      'crud',
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ]);
    expect(list.items[0]?.status?.phase).to.equal('Active');
  });

  it('stamps uid, creationTimestamp and a growing resourceVersion on create', async () => {
    const a = await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: { metadata: { name: 'stamp-a' }, data: { k: 'v' } },
    });
    const b = await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'stamp-b' } } });
    expect(a.metadata?.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(a.metadata?.creationTimestamp).to.be.instanceOf(Date);
    expect(Number(b.metadata?.resourceVersion)).to.be.greaterThan(Number(a.metadata?.resourceVersion));
    expect(cluster.resourceVersion()).to.equal(b.metadata?.resourceVersion);
    expect(a.metadata?.generation).to.equal(undefined);
  });

  it('generates a name from generateName', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: { metadata: { generateName: 'gen-' } },
    });
    expect(cm.metadata?.name).to.match(/^gen-[a-z0-9]{5}$/);
  });

  it('sets generation 1 on create and bumps it for spec changes, never for labels', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: 'crud', body: deploymentBody('gen') });
    expect(created.metadata?.generation).to.equal(1);
    const labelled = await apps.replaceNamespacedDeployment({
      namespace: 'crud',
      name: 'gen',
      body: { ...created, metadata: { ...created.metadata, labels: { x: 'y' } } },
    });
    expect(labelled.metadata?.generation).to.equal(1);
    const scaled = await apps.replaceNamespacedDeployment({
      namespace: 'crud',
      name: 'gen',
      body: { ...labelled, spec: { ...labelled.spec!, replicas: 3 } },
    });
    expect(scaled.metadata?.generation).to.equal(2);
    // Deployments (only) also count annotation changes, since they are copied to ReplicaSets.
    const annotated = await apps.replaceNamespacedDeployment({
      namespace: 'crud',
      name: 'gen',
      body: { ...scaled, metadata: { ...scaled.metadata, annotations: { note: 'n' } } },
    });
    expect(annotated.metadata?.generation).to.equal(3);
  });

  it('rejects a stale resourceVersion with the real 409 Conflict message', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'occ' } } });
    await core.replaceNamespacedConfigMap({ namespace: 'crud', name: 'occ', body: { ...cm, data: { a: '1' } } });
    const { code, body } = await failure(
      core.replaceNamespacedConfigMap({ namespace: 'crud', name: 'occ', body: { ...cm, data: { a: '2' } } }),
    );
    expect(code).to.equal(409);
    expect(body).to.deep.include({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect(body.details).to.deep.equal({ name: 'occ', kind: 'configmaps' });
  });

  it('treats an update without resourceVersion as unconditional', async () => {
    await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'uncond' } } });
    const updated = await core.replaceNamespacedConfigMap({
      namespace: 'crud',
      name: 'uncond',
      body: { metadata: { name: 'uncond' }, data: { z: 'z' } },
    });
    expect(updated.data).to.deep.equal({ z: 'z' });
  });

  it('does not write, bump the resourceVersion or notify on an update that changes nothing', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: { metadata: { name: 'noop' }, data: { a: 'b' } },
    });
    const again = await core.replaceNamespacedConfigMap({ namespace: 'crud', name: 'noop', body: cm });
    expect(again.metadata?.resourceVersion).to.equal(cm.metadata?.resourceVersion);
  });

  it('answers AlreadyExists for a duplicate name', async () => {
    await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'dup' } } });
    const { code, body } = await failure(
      core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'dup' } } }),
    );
    expect(code).to.equal(409);
    expect(body).to.deep.include({ reason: 'AlreadyExists', message: 'configmaps "dup" already exists' });
  });

  it('answers NotFound with name and kind details, qualified by group for named groups', async () => {
    const missing = await failure(core.readNamespacedPod({ namespace: 'crud', name: 'ghost' }));
    expect(missing.code).to.equal(404);
    expect(missing.body).to.deep.include({
      reason: 'NotFound',
      message: 'pods "ghost" not found',
      details: { name: 'ghost', kind: 'pods' },
    });
    const deploy = await failure(apps.readNamespacedDeployment({ namespace: 'crud', name: 'ghost' }));
    expect(deploy.body.message).to.equal('deployments.apps "ghost" not found');
    expect(deploy.body.details).to.deep.equal({ name: 'ghost', group: 'apps', kind: 'deployments' });
  });

  it('refuses to create in a namespace that does not exist', async () => {
    const { code, body } = await failure(
      core.createNamespacedConfigMap({ namespace: 'nope', body: { metadata: { name: 'x' } } }),
    );
    expect(code).to.equal(404);
    expect(body.message).to.equal('namespaces "nope" not found');
  });

  it('rejects invalid names with 422 and field causes', async () => {
    const { code, body } = await failure(
      core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'Bad_Name' } } }),
    );
    expect(code).to.equal(422);
    expect(body.reason).to.equal('Invalid');
    expect(body.message).to.match(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(body.details.causes[0]).to.deep.include({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    const ns = await failure(core.createNamespace({ body: { metadata: { name: 'has.dot' } } }));
    expect(ns.body.message).to.include('a lowercase RFC 1123 label');
  });

  it('requires a name or generateName', async () => {
    const { code, body } = await failure(core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: {} } }));
    expect(code).to.equal(422);
    expect(body.details.causes[0]).to.deep.include({ reason: 'FieldValueRequired', field: 'metadata.name' });
  });

  it('rejects a body of the wrong kind or apiVersion, and a namespace differing from the URL, with 400', async () => {
    const kind = await send(cluster, 'POST', '/api/v1/namespaces/crud/configmaps', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'k' },
    });
    expect(kind.status).to.equal(400);
    expect(kind.body.reason).to.equal('BadRequest');
    const version = await send(cluster, 'POST', '/api/v1/namespaces/crud/configmaps', {
      apiVersion: 'apps/v1',
      kind: 'ConfigMap',
      metadata: { name: 'k' },
    });
    expect(version.status).to.equal(400);
    const ns = await send(cluster, 'POST', '/api/v1/namespaces/crud/configmaps', {
      metadata: { name: 'k', namespace: 'default' },
    });
    expect(ns.status).to.equal(400);
    expect(ns.body.message).to.equal(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  it('answers 404 to PUT of a missing object instead of creating it', async () => {
    const { code } = await failure(
      core.replaceNamespacedConfigMap({ namespace: 'crud', name: 'absent', body: { metadata: { name: 'absent' } } }),
    );
    expect(code).to.equal(404);
  });

  it('returns a success Status when deleting a configmap and the object when deleting a pod', async () => {
    const cm: V1ConfigMap = await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: { metadata: { name: 'del' } },
    });
    const status = await send(cluster, 'DELETE', '/api/v1/namespaces/crud/configmaps/del');
    expect(status.status).to.equal(200);
    expect(status.body).to.deep.include({ kind: 'Status', status: 'Success' });
    expect(status.body.details).to.deep.equal({ name: 'del', kind: 'configmaps', uid: cm.metadata?.uid });
    await core.createNamespacedPod({ namespace: 'crud', body: podBody('del-pod') });
    const pod = await core.deleteNamespacedPod({ namespace: 'crud', name: 'del-pod' });
    expect(pod.kind).to.equal('Pod');
    expect((await failure(core.readNamespacedPod({ namespace: 'crud', name: 'del-pod' }))).code).to.equal(404);
  });

  it('checks DeleteOptions preconditions', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'pre' } } });
    const wrongUid = await failure(
      core.deleteNamespacedConfigMap({ namespace: 'crud', name: 'pre', body: { preconditions: { uid: 'other' } } }),
    );
    expect(wrongUid.code).to.equal(409);
    expect(wrongUid.body.message).to.equal(
      `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (other) does not match the UID in record (${cm.metadata?.uid}). The object might have been deleted and then recreated`,
    );
    expect(wrongUid.body.details).to.deep.equal({ name: 'pre', kind: 'ConfigMap' });
    const wrongRv = await failure(
      core.deleteNamespacedConfigMap({
        namespace: 'crud',
        name: 'pre',
        body: { preconditions: { resourceVersion: '1' } },
      }),
    );
    expect(wrongRv.code).to.equal(409);
    await core.deleteNamespacedConfigMap({
      namespace: 'crud',
      name: 'pre',
      body: { preconditions: { uid: cm.metadata!.uid!, resourceVersion: cm.metadata!.resourceVersion! } },
    });
  });

  it('validates but stores nothing for dryRun=All', async () => {
    const before = cluster.resourceVersion();
    const created = await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: { metadata: { name: 'dry' } },
      dryRun: 'All',
    });
    expect(created.metadata?.name).to.equal('dry');
    expect(cluster.resourceVersion()).to.equal(before);
    expect((await failure(core.readNamespacedConfigMap({ namespace: 'crud', name: 'dry' }))).code).to.equal(404);
  });

  it('never lets a client mutate stored state through a response', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'crud',
      body: { metadata: { name: 'frozen' }, data: { a: '1' } },
    });
    const read = await core.readNamespacedConfigMap({ namespace: 'crud', name: 'frozen' });
    read.data!['a'] = 'changed';
    expect((await core.readNamespacedConfigMap({ namespace: 'crud', name: 'frozen' })).data).to.deep.equal({ a: '1' });
  });

  it('folds Secret stringData into base64 data and defaults the type', async () => {
    const secret = await core.createNamespacedSecret({
      namespace: 'crud',
      body: { metadata: { name: 's' }, stringData: { user: 'admin' }, data: { kept: 'eA==' } },
    });
    expect(secret.data).to.deep.equal({ user: Buffer.from('admin').toString('base64'), kept: 'eA==' });
    expect(secret.stringData).to.equal(undefined);
    expect(secret.type).to.equal('Opaque');
  });

  it('validates lease durations like the real server', async () => {
    const res = await send(cluster, 'POST', '/apis/coordination.k8s.io/v1/namespaces/crud/leases', {
      metadata: { name: 'l' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 0 },
    });
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal(
      'Lease.coordination.k8s.io "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
  });

  it('refuses to delete the default namespace, like the NamespaceLifecycle admission plugin', async () => {
    const { code, body } = await failure(core.deleteNamespace({ name: 'default' }));
    expect(code).to.equal(403);
    expect(body.message).to.equal('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('marks a deleted namespace Terminating and refuses new content in it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await core.deleteNamespace({ name: 'doomed' });
    expect((await core.readNamespace({ name: 'doomed' })).status?.phase).to.equal('Terminating');
    const { code, body } = await failure(
      core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'late' } } }),
    );
    expect(code).to.equal(403);
    expect(body.message).to.equal(
      'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
  });
});
