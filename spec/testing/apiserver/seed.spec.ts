import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { SeedError } from '../../../src/testing/apiserver/index.js';
import { podBody, rawWatch, send, until } from './helpers.js';

function caught(run: () => unknown): SeedError {
  try {
    run();
  } catch (error) {
    if (error instanceof SeedError) return error;
    throw error;
  }
  throw new Error('expected a SeedError');
}

const managedFields = [
  { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } },
];

describe('in-memory API server: programmatic seeding', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ namespaces: ['seed'] });
  });
  after(() => cluster.stop());

  it('creates objects through the create path and returns the resourceVersion after', async () => {
    const before = Number(cluster.resourceVersion());
    const rv = cluster.seed([
      { ...podBody('seeded-a'), metadata: { name: 'seeded-a', namespace: 'seed' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seeded-cm', namespace: 'seed' }, data: { k: 'v' } },
    ]);
    expect(Number(rv)).to.equal(before + 2);
    const pod = await send(cluster, 'GET', '/api/v1/namespaces/seed/pods/seeded-a');
    expect(pod.status).to.equal(200);
    expect(pod.body.metadata.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(pod.body.metadata.creationTimestamp).to.be.a('string');
    expect(pod.body.metadata.generation).to.equal(1);
    expect(pod.body.metadata.resourceVersion).to.equal(String(before + 1));
    expect(pod.body.status).to.deep.equal({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(pod.body.spec.containers[0].terminationMessagePath).to.equal('/dev/termination-log');
    const cm = await send(cluster, 'GET', '/api/v1/namespaces/seed/configmaps/seeded-cm');
    expect(cm.body.data).to.deep.equal({ k: 'v' });
  });

  it('puts namespaced objects without a namespace into default', async () => {
    cluster.seed([podBody('seeded-default')]);
    expect((await send(cluster, 'GET', '/api/v1/namespaces/default/pods/seeded-default')).status).to.equal(200);
  });

  it('resets status and managedFields like HTTP unless asked to keep them', async () => {
    const status = { phase: 'Running', podIP: '10.0.0.7' };
    cluster.seed([{ ...podBody('reset'), metadata: { name: 'reset', namespace: 'seed', managedFields }, status }]);
    cluster.seed([{ ...podBody('kept'), metadata: { name: 'kept', namespace: 'seed', managedFields }, status }], {
      preserveStatus: true,
      preserveManagedFields: true,
    });
    const reset = (await send(cluster, 'GET', '/api/v1/namespaces/seed/pods/reset')).body;
    const kept = (await send(cluster, 'GET', '/api/v1/namespaces/seed/pods/kept')).body;
    expect(reset.status.phase).to.equal('Pending');
    expect(reset.metadata.managedFields).to.equal(undefined);
    expect(kept.status).to.deep.equal(status);
    expect(kept.metadata.managedFields).to.deep.equal(managedFields);
  });

  it('emits one ADDED watch event per seeded object, in order', async () => {
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/seed/configmaps?watch=1&resourceVersion=${cluster.resourceVersion()}`,
    );
    try {
      cluster.seed(
        ['w1', 'w2', 'w3'].map((name) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: 'seed' },
        })),
      );
      await until(() => watch.events.length >= 3, 'three watch events');
      expect(watch.events.map((e) => `${e.type} ${e.object.metadata?.['name']}`)).to.deep.equal([
        'ADDED w1',
        'ADDED w2',
        'ADDED w3',
      ]);
    } finally {
      watch.stop();
    }
  });

  it('stores nothing when one object of the batch is invalid, and says which one with the HTTP Status', async () => {
    const rv = cluster.resourceVersion();
    const error = caught(() =>
      cluster.seed([
        podBody('batch-ok'),
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'Bad_Name' },
          spec: { containers: [{ name: 'c', image: 'i' }] },
        },
      ]),
    );
    expect(error.index).to.equal(1);
    expect(error.code).to.equal(422);
    expect(error.status.reason).to.equal('Invalid');
    expect(error.status.kind).to.equal('Status');
    expect(cluster.resourceVersion()).to.equal(rv);
    expect((await send(cluster, 'GET', '/api/v1/namespaces/default/pods/batch-ok')).status).to.equal(404);
  });

  it('rejects a missing namespace, an existing name, a duplicate in the batch and an unknown kind', () => {
    const rv = cluster.resourceVersion();
    expect(
      caught(() => cluster.seed([{ ...podBody('x'), metadata: { name: 'x', namespace: 'nowhere' } }])).status.message,
    ).to.equal('namespaces "nowhere" not found');
    expect(caught(() => cluster.seed([podBody('seeded-default')])).status.reason).to.equal('AlreadyExists');
    const twice = caught(() => cluster.seed([podBody('twice'), podBody('twice')]));
    expect([twice.index, twice.status.reason]).to.deep.equal([1, 'AlreadyExists']);
    expect(
      caught(() => cluster.seed([{ apiVersion: 'example.com/v1', kind: 'Nope', metadata: { name: 'n' } }])).code,
    ).to.equal(404);
    expect(caught(() => cluster.seed([{ metadata: { name: 'no-kind' } }])).code).to.equal(400);
    expect(cluster.resourceVersion()).to.equal(rv);
  });

  it('does not retain or mutate the objects passed in', async () => {
    const body = podBody('copied');
    const snapshot = JSON.stringify(body);
    cluster.seed([body]);
    expect(JSON.stringify(body)).to.equal(snapshot);
    body.spec.containers[0].image = 'changed';
    expect(
      (await send(cluster, 'GET', '/api/v1/namespaces/default/pods/copied')).body.spec.containers[0].image,
    ).to.equal('busybox');
  });

  it('updates existing objects like a PUT, keeping status unless asked, and writes nothing when unchanged', async () => {
    cluster.seed([{ ...podBody('upd'), metadata: { name: 'upd', namespace: 'seed', labels: { v: '1' } } }]);
    const rv1 = Number(cluster.resourceVersion());
    const rv2 = cluster.update([
      {
        ...podBody('upd'),
        metadata: { name: 'upd', namespace: 'seed', labels: { v: '2' } },
        status: { phase: 'Failed' },
      },
    ]);
    expect(Number(rv2)).to.equal(rv1 + 1);
    let pod = (await send(cluster, 'GET', '/api/v1/namespaces/seed/pods/upd')).body;
    expect([pod.metadata.labels.v, pod.status.phase]).to.deep.equal(['2', 'Pending']);
    cluster.update([{ ...pod, status: { phase: 'Running' }, metadata: { ...pod.metadata, managedFields } }], {
      preserveStatus: true,
      preserveManagedFields: true,
    });
    pod = (await send(cluster, 'GET', '/api/v1/namespaces/seed/pods/upd')).body;
    expect(pod.status).to.deep.equal({ phase: 'Running' });
    expect(pod.metadata.managedFields).to.deep.equal(managedFields);
    const rv = cluster.resourceVersion();
    expect(cluster.update([pod], { preserveStatus: true, preserveManagedFields: true })).to.equal(rv);
  });

  it('refuses to update a missing object or a stale resourceVersion with the HTTP Status', () => {
    expect(caught(() => cluster.update([podBody('never-created')])).code).to.equal(404);
    cluster.seed([podBody('stale')]);
    const error = caught(() => cluster.update([podBody('stale', { resourceVersion: '1' })]));
    expect([error.code, error.status.reason]).to.deep.equal([409, 'Conflict']);
  });
});
