import { expect } from 'chai';
import { decodeProtobuf, encodeProtobuf } from '../../../src/testing/apiserver/protobuf/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';

describe('in-memory API server: protobuf', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'pb', labels: { app: 'pb' }, creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: {
      replicas: 3, selector: { matchLabels: { app: 'pb' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: { metadata: { labels: { app: 'pb' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m' } } }] } },
    },
  };

  it('round-trips an object through the k8s\\0 + runtime.Unknown envelope, special messages included', () => {
    const bytes = encodeProtobuf(deployment, 'apps/v1', 'Deployment')!;
    expect(bytes.subarray(0, 4).toString('latin1')).to.equal('k8s\u0000');
    expect(decodeProtobuf(bytes).object).to.deep.equal(deployment);
  });

  it('creates from a protobuf body and answers in protobuf when the Accept header puts it first', async () => {
    const res = await fetch(`${cluster.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf, application/json' },
      body: encodeProtobuf(deployment, 'apps/v1', 'Deployment'),
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get('content-type')).to.equal('application/vnd.kubernetes.protobuf');
    const created = decodeProtobuf(Buffer.from(await res.arrayBuffer())).object as any;
    expect(created.spec.replicas).to.equal(3);
    expect(created.spec.strategy.rollingUpdate).to.deep.equal({ maxSurge: '25%', maxUnavailable: 1 });
    expect(created.metadata.managedFields[0].fieldsV1).to.have.property('f:spec');
  });

  it('refuses protobuf for custom resources with 415, as the real server does', async () => {
    await cluster.seed([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.pb.example.com' }, spec: { group: 'pb.example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } } as never]);
    const res = await fetch(`${cluster.url}/apis/pb.example.com/v1/namespaces/default/things`, { method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: 'x' });
    expect(res.status).to.equal(415);
  });
});
