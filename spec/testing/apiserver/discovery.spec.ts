import { KubernetesObjectApi } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { raw, send } from './helpers.js';

describe('in-memory API server: discovery and health', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('serves /api with the core version', async () => {
    const { body } = await send(cluster, 'GET', '/api');
    expect(body.kind).to.equal('APIVersions');
    expect(body.versions).to.deep.equal(['v1']);
  });

  it('serves /api/v1 with names, scope, kinds, verbs, short names and status subresources', async () => {
    const { body } = await send(cluster, 'GET', '/api/v1');
    expect(body).to.deep.include({ kind: 'APIResourceList', groupVersion: 'v1' });
    const pods = body.resources.find((r: any) => r.name === 'pods');
    expect(pods).to.deep.include({ singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'] });
    expect(pods.verbs).to.include.members([
      'create',
      'delete',
      'get',
      'list',
      'patch',
      'update',
      'watch',
      'deletecollection',
    ]);
    expect(body.resources.find((r: any) => r.name === 'pods/status')).to.deep.include({
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
    expect(body.resources.find((r: any) => r.name === 'nodes')).to.deep.include({
      namespaced: false,
      shortNames: ['no'],
    });
    const shortNames = body.resources.flatMap((r: any) => r.shortNames ?? []);
    expect(shortNames).to.include.members(['po', 'no', 'ns', 'cm', 'svc', 'sa', 'ev']);
    expect(body.resources.find((r: any) => r.name === 'configmaps/status')).to.equal(undefined);
  });

  it('serves /apis, each group and each group version', async () => {
    const groups = (await send(cluster, 'GET', '/apis')).body;
    expect(groups.kind).to.equal('APIGroupList');
    expect(groups.groups.map((g: any) => g.name)).to.include.members([
      'apps',
      'coordination.k8s.io',
      'events.k8s.io',
      'apiextensions.k8s.io',
    ]);
    const apps = (await send(cluster, 'GET', '/apis/apps')).body;
    expect(apps).to.deep.include({
      kind: 'APIGroup',
      name: 'apps',
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
    const appsV1 = (await send(cluster, 'GET', '/apis/apps/v1')).body;
    expect(appsV1.resources.map((r: any) => r.name)).to.include.members([
      'deployments',
      'deployments/status',
      'replicasets',
      'statefulsets',
      'daemonsets',
    ]);
    expect(appsV1.resources.flatMap((r: any) => r.shortNames ?? [])).to.include.members(['deploy', 'rs', 'sts', 'ds']);
    expect((await send(cluster, 'GET', '/apis/nope.io')).status).to.equal(404);
    expect((await send(cluster, 'GET', '/apis/apps/v9')).status).to.equal(404);
  });

  it('answers an aggregated-discovery Accept header with the legacy JSON document', async () => {
    const res = await raw(cluster, '/apis', {
      headers: {
        accept:
          'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
      },
    });
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(((await res.json()) as any).kind).to.equal('APIGroupList');
  });

  it('serves /version and the health endpoints', async () => {
    const version = (await send(cluster, 'GET', '/version')).body;
    expect(version).to.include({ major: '1', minor: '32' });
    for (const path of ['/healthz', '/readyz', '/livez']) {
      const res = await raw(cluster, path);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal('ok');
    }
  });

  it('serves the OpenAPI v3 index kubectl reads before validating', async () => {
    const index = (await send(cluster, 'GET', '/openapi/v3')).body;
    expect(index.paths['api/v1'].serverRelativeURL).to.match(/^\/openapi\/v3\/api\/v1\?hash=/);
    const doc = (await send(cluster, 'GET', index.paths['apis/apps/v1'].serverRelativeURL)).body;
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(patch.parameters.map((p: any) => p.name)).to.include('fieldValidation');
  });

  it('is enough for client-node KubernetesObjectApi to resolve plurals and scope', async () => {
    const client = KubernetesObjectApi.makeApiClient(cluster.kubeConfig);
    const created = await client.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'generic', namespace: 'default' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    } as any);
    expect(created.metadata?.uid).to.be.a('string');
    const ns = await client.read({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    expect(ns.metadata?.name).to.equal('default');
    const list = await client.list('apps/v1', 'Deployment', 'default');
    expect(list.items).to.have.length(1);
  });
});
