import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { failure, podBody, raw, send } from './helpers.js';

describe('in-memory API server: list', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;

  before(async () => {
    cluster = await startTestCluster({ namespaces: ['a', 'b'] });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    for (let i = 0; i < 12; i++) {
      await core.createNamespacedConfigMap({
        namespace: 'a',
        body: {
          metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 === 0 ? 'even' : 'odd' } },
        },
      });
    }
    await core.createNamespacedConfigMap({ namespace: 'b', body: { metadata: { name: 'other' } } });
    const running = podBody('running');
    running.spec.nodeName = 'n1';
    await core.createNamespacedPod({ namespace: 'a', body: running });
    await core.createNamespacedPod({ namespace: 'a', body: podBody('floating') });
  });
  after(() => cluster.stop());

  it('lists with the list kind, in name order, at the current resourceVersion', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'a' });
    expect(list.kind).to.equal('ConfigMapList');
    expect(list.items.map((i) => i.metadata?.name)).to.deep.equal(
      [...Array(12).keys()].map((i) => `cm-${String(i).padStart(2, '0')}`),
    );
    expect(list.metadata?.resourceVersion).to.equal(cluster.resourceVersion());
  });

  it('lists across all namespaces', async () => {
    const list = await core.listConfigMapForAllNamespaces();
    expect(list.items).to.have.length(13);
  });

  it('filters by label selector', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'a', labelSelector: 'parity in (odd)' });
    expect(list.items).to.have.length(6);
  });

  it('filters pods by spec.nodeName and metadata.name field selectors', async () => {
    const scheduled = await core.listNamespacedPod({ namespace: 'a', fieldSelector: 'spec.nodeName=n1' });
    expect(scheduled.items.map((p) => p.metadata?.name)).to.deep.equal(['running']);
    const unscheduled = await core.listNamespacedPod({ namespace: 'a', fieldSelector: 'spec.nodeName=' });
    expect(unscheduled.items.map((p) => p.metadata?.name)).to.deep.equal(['floating']);
    const byName = await core.listNamespacedPod({
      namespace: 'a',
      fieldSelector: 'metadata.name!=running,status.phase=Pending',
    });
    expect(byName.items.map((p) => p.metadata?.name)).to.deep.equal(['floating']);
  });

  it('rejects an unsupported field label with the real 400 message of each type', async () => {
    const cm = await failure(core.listNamespacedConfigMap({ namespace: 'a', fieldSelector: 'spec.nodeName=x' }));
    expect(cm.code).to.equal(400);
    expect(cm.body).to.deep.include({
      reason: 'BadRequest',
      message: '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    const pod = await failure(core.listNamespacedPod({ namespace: 'a', fieldSelector: 'spec.foo=x' }));
    expect(pod.code).to.equal(400);
    expect(pod.body).to.deep.include({ reason: 'BadRequest', message: 'field label not supported: spec.foo' });
  });

  it('rejects a malformed label selector with 400', async () => {
    const { code, body } = await failure(core.listNamespacedConfigMap({ namespace: 'a', labelSelector: 'a in (' }));
    expect(code).to.equal(400);
    expect(body.reason).to.equal('BadRequest');
  });

  it('paginates with continue and remainingItemCount over a consistent snapshot', async () => {
    const first = await core.listNamespacedConfigMap({ namespace: 'a', limit: 5 });
    expect(first.items).to.have.length(5);
    expect(first.metadata?.remainingItemCount).to.equal(7);
    // Changes after the first page must not show up in later pages.
    await core.deleteNamespacedConfigMap({ namespace: 'a', name: 'cm-07' });
    await core.createNamespacedConfigMap({ namespace: 'a', body: { metadata: { name: 'cm-05a' } } });
    const second = await core.listNamespacedConfigMap({
      namespace: 'a',
      limit: 5,
      _continue: first.metadata!._continue!,
    });
    const third = await core.listNamespacedConfigMap({
      namespace: 'a',
      limit: 5,
      _continue: second.metadata!._continue!,
    });
    expect(third.metadata?._continue).to.equal(undefined);
    const names = [...first.items, ...second.items, ...third.items].map((i) => i.metadata?.name);
    expect(names).to.deep.equal([...Array(12).keys()].map((i) => `cm-${String(i).padStart(2, '0')}`));
    expect(second.metadata?.resourceVersion).to.equal(first.metadata?.resourceVersion);
    await core.createNamespacedConfigMap({
      namespace: 'a',
      body: { metadata: { name: 'cm-07', labels: { parity: 'odd' } } },
    });
    await core.deleteNamespacedConfigMap({ namespace: 'a', name: 'cm-05a' });
  });

  it('omits remainingItemCount when a selector is used', async () => {
    const page = await core.listNamespacedConfigMap({ namespace: 'a', limit: 2, labelSelector: 'parity=even' });
    expect(page.metadata?._continue).to.be.a('string');
    expect(page.metadata?.remainingItemCount).to.equal(undefined);
  });

  it('expires continue tokens once history is compacted past them, with the real 410 message', async () => {
    const first = await core.listNamespacedConfigMap({ namespace: 'a', limit: 3 });
    await core.createNamespacedConfigMap({ namespace: 'b', body: { metadata: { name: 'bump' } } });
    cluster.faults.compact();
    const { code, body } = await failure(
      core.listNamespacedConfigMap({ namespace: 'a', limit: 3, _continue: first.metadata!._continue! }),
    );
    expect(code).to.equal(410);
    expect(body.reason).to.equal('Expired');
    expect(body.message).to.match(/^The provided continue parameter is too old to display a consistent list result\./);
    expect(body.metadata.continue).to.be.a('string');
  });

  it('rejects a garbled continue token with 400', async () => {
    const res = await send(cluster, 'GET', '/api/v1/namespaces/a/configmaps?limit=1&continue=garbage');
    expect(res.status).to.equal(400);
  });

  it('serves resourceVersion=0 and NotOlderThan from the current state, and 504s a future resourceVersion', async () => {
    const zero = await core.listNamespacedConfigMap({ namespace: 'b', resourceVersion: '0' });
    expect(zero.items.length).to.be.greaterThan(0);
    const notOlder = await core.listNamespacedConfigMap({
      namespace: 'b',
      resourceVersion: '1',
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(notOlder.metadata?.resourceVersion).to.equal(cluster.resourceVersion());
    const future = await send(
      cluster,
      'GET',
      `/api/v1/namespaces/b/configmaps?resourceVersion=${Number(cluster.resourceVersion()) + 100}`,
    );
    expect(future.status).to.equal(504);
  });

  it('ignores limit on a resourceVersion=0 list, as the watch cache does', async () => {
    const all = await core.listNamespacedConfigMap({ namespace: 'a', resourceVersion: '0', limit: 2 });
    expect(all.items.length).to.be.greaterThan(2);
    expect(all.metadata?._continue).to.equal(undefined);
  });

  it('serves an Exact list at an older resourceVersion from history', async () => {
    await core.createNamespacedConfigMap({ namespace: 'b', body: { metadata: { name: 'exact-1' } } });
    const at = cluster.resourceVersion();
    await core.createNamespacedConfigMap({ namespace: 'b', body: { metadata: { name: 'exact-2' } } });
    const exact = await core.listNamespacedConfigMap({
      namespace: 'b',
      resourceVersion: at,
      resourceVersionMatch: 'Exact',
    });
    expect(exact.items.map((i) => i.metadata?.name))
      .to.include('exact-1')
      .and.not.include('exact-2');
    expect(exact.metadata?.resourceVersion).to.equal(at);
  });

  it('rejects resourceVersionMatch without resourceVersion with 422, and resourceVersion with continue with 400', async () => {
    const res = await send(cluster, 'GET', '/api/v1/namespaces/b/configmaps?resourceVersionMatch=NotOlderThan');
    expect(res.status).to.equal(422);
    expect(res.body.details.causes[0]).to.deep.equal({
      reason: 'FieldValueForbidden',
      field: 'resourceVersionMatch',
      message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    });
    const first = await core.listNamespacedConfigMap({ namespace: 'a', limit: 1 });
    const both = await send(
      cluster,
      'GET',
      `/api/v1/namespaces/a/configmaps?limit=1&resourceVersion=5&continue=${first.metadata!._continue!}`,
    );
    expect(both.status).to.equal(400);
    expect(both.body.message).to.equal('specifying resource version is not allowed when using continue');
  });

  it('serves PartialObjectMetadataList for a metadata-only Accept header', async () => {
    const res = await raw(cluster, '/api/v1/namespaces/b/configmaps', {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' },
    });
    const body = (await res.json()) as any;
    expect(body.kind).to.equal('PartialObjectMetadataList');
    expect(body.apiVersion).to.equal('meta.k8s.io/v1');
    expect(body.items[0]).to.have.keys('kind', 'apiVersion', 'metadata');
    expect(body.items[0].kind).to.equal('PartialObjectMetadata');
  });

  it('serves the real printer columns for pods in a Table', async () => {
    const res = await raw(cluster, '/api/v1/namespaces/a/pods', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    const table = (await res.json()) as any;
    expect(table.columnDefinitions.map((c: any) => c.name)).to.deep.equal([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP',
      'Node',
    ]);
    const floating = table.rows.find((r: any) => r.cells[0] === 'floating');
    expect(floating.cells.slice(0, 4)).to.deep.equal(['floating', '0/1', 'Pending', 0]);
    expect(floating.object.kind).to.equal('PartialObjectMetadata');
  });

  it('serves a Table for kubectl and falls back to JSON when only tables of other versions are asked', async () => {
    const res = await raw(cluster, '/api/v1/namespaces/b/configmaps', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    const table = (await res.json()) as any;
    expect(table.kind).to.equal('Table');
    expect(table.rows[0].cells[0]).to.be.a('string');
    const none = await raw(cluster, '/api/v1/namespaces/b/configmaps', {
      headers: { accept: 'application/json;as=Table;v=v9;g=meta.k8s.io,application/json' },
    });
    expect(((await none.json()) as any).kind).to.equal('ConfigMapList');
    const refused = await raw(cluster, '/api/v1/namespaces/b/configmaps', { headers: { accept: 'application/cbor' } });
    expect(refused.status).to.equal(406);
    expect(((await refused.json()) as any).message).to.match(
      /^406: Not Acceptable\n\nAvailable representations: application\/json/,
    );
  });
});
