import { expect } from 'chai';
import protobuf from 'protobufjs';
import goFields from '../../../src/testing/apiserver/protobuf/go-fields.json' with { type: 'json' };
import { decodeProtobuf, encodeProtobuf, protobufType } from '../../../src/testing/apiserver/protobuf/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';

describe('in-memory API server: protobuf', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'pb', labels: { app: 'pb' }, creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'pb' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'pb' } },
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m' } } }] },
      },
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
      headers: {
        'content-type': 'application/vnd.kubernetes.protobuf',
        accept: 'application/vnd.kubernetes.protobuf, application/json',
      },
      body: encodeProtobuf(deployment, 'apps/v1', 'Deployment'),
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get('content-type')).to.equal('application/vnd.kubernetes.protobuf');
    const created = decodeProtobuf(Buffer.from(await res.arrayBuffer())).object as any;
    expect(created.spec.replicas).to.equal(3);
    expect(created.spec.strategy.rollingUpdate).to.deep.equal({ maxSurge: '25%', maxUnavailable: 1 });
    expect(created.metadata.managedFields[0].fieldsV1).to.have.property('f:spec');
  });

  /** A body as Go's protobuf writes it: every non-pointer field present, zero or not; pointers only when set. */
  const goDeployment = (replicas: number | undefined) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'zero', namespace: '', generateName: '', labels: { app: 'zero' } },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      minReadySeconds: 0,
      paused: false,
      selector: { matchLabels: { app: 'zero' } },
      strategy: { type: '' },
      template: {
        metadata: { labels: { app: 'zero' } },
        spec: { containers: [{ name: 'c', image: 'nginx', stdin: false, tty: false }] },
      },
    },
    status: { replicas: 0, observedGeneration: 0 },
  });

  it('keeps an explicit zero in a field Go declares as a pointer, and drops the zeros Go writes for every other field', () => {
    const decoded = decodeProtobuf(encodeProtobuf(goDeployment(0), 'apps/v1', 'Deployment')!).object as any;
    expect(decoded.spec.replicas).to.equal(0);
    expect(decoded.spec).to.not.have.any.keys('minReadySeconds', 'paused');
    expect(decoded.metadata).to.deep.equal({ name: 'zero', labels: { app: 'zero' } });
    expect(decoded.spec.template.spec.containers).to.deep.equal([{ name: 'c', image: 'nginx' }]);
    expect(decoded).to.not.have.property('status');
    expect(
      (decodeProtobuf(encodeProtobuf(goDeployment(undefined), 'apps/v1', 'Deployment')!).object as any).spec,
    ).to.not.have.property('replicas');
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { holderIdentity: '', leaseDurationSeconds: 15, leaseTransitions: 0 },
    };
    expect(decodeProtobuf(encodeProtobuf(lease, 'coordination.k8s.io/v1', 'Lease')!).object).to.deep.equal(lease);
    const owned = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: false, blockOwnerDeletion: true },
        ],
      },
    };
    expect(decodeProtobuf(encodeProtobuf(owned, 'v1', 'ConfigMap')!).object).to.deep.equal(owned);
  });

  it("reads and writes the structs Go inlines in JSON at their parent's level: a secretKeyRef's name, a probe's handler, a volume's source", () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'inline' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token', optional: false } } }],
            envFrom: [{ configMapRef: { name: 'settings' } }],
            readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
          },
        ],
        volumes: [{ name: 'config', configMap: { name: 'settings', defaultMode: 420 } }],
      },
    };
    expect(decodeProtobuf(encodeProtobuf(pod, 'v1', 'Pod')!).object).to.deep.equal(pod);
  });

  it('names only messages and fields of the vendored .proto files in go-fields.json', () => {
    const root = protobufType('apps/v1', 'Deployment')!.root;
    // Every name that does not resolve to a field of a vendored message.
    const unknown = (table: Record<string, string[]>): string[] =>
      Object.entries(table).flatMap(([message, fields]) => {
        const type = root.lookup(message);
        if (!(type instanceof protobuf.Type)) return [message];
        return fields.filter((f) => !(type.fields[f] instanceof protobuf.Field)).map((f) => `${message}.${f}`);
      });
    expect(unknown(goFields.pointers)).to.deep.equal([]);
    expect(unknown(goFields.inline)).to.deep.equal([]);
    expect(goFields.pointers['k8s.io.api.apps.v1.DeploymentSpec']).to.include('replicas');
    expect(goFields.pointers['k8s.io.api.coordination.v1.LeaseSpec']).to.include.members([
      'holderIdentity',
      'leaseTransitions',
    ]);
  });

  it('creates a Deployment with replicas: 0 sent in protobuf, as kubectl create deployment --replicas=0 does', async () => {
    const res = await fetch(`${cluster.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body: encodeProtobuf(goDeployment(0), 'apps/v1', 'Deployment'),
    });
    expect(res.status).to.equal(201);
    expect(((await res.json()) as any).spec.replicas).to.equal(0);
  });

  it('refuses protobuf for custom resources with 415, as the real server does', async () => {
    await cluster.seed([
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.pb.example.com' },
        spec: {
          group: 'pb.example.com',
          scope: 'Namespaced',
          names: { plural: 'things', kind: 'Thing' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      } as never,
    ]);
    const res = await fetch(`${cluster.url}/apis/pb.example.com/v1/namespaces/default/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body: 'x',
    });
    expect(res.status).to.equal(415);
  });
});
