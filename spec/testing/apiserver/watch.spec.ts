import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { clientWatch, rawWatch, send, until } from './helpers.js';

describe('in-memory API server: watch', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  const ns = (name: string) => ({ namespace: 'w', body: { metadata: { name } } });

  before(async () => {
    cluster = await startTestCluster({ namespaces: ['w', 'sel'], bookmarkIntervalMs: 50, watchHistorySize: 100 });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  });
  after(() => cluster.stop());

  it('sends synthetic ADDED events for the current state when resourceVersion is unset or 0, then live events', async () => {
    await core.createNamespacedConfigMap(ns('existing'));
    for (const query of [{}, { resourceVersion: '0' }]) {
      const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/w/configmaps', query);
      await until(() => watch.events.length >= 1, 'synthetic ADDED');
      expect(watch.events[0]).to.deep.include({ type: 'ADDED' });
      expect(watch.events[0]!.object.metadata!['name']).to.equal('existing');
      watch.stop();
    }
    const live = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/w/configmaps', {});
    await until(() => live.events.length === 1, 'initial');
    await core.createNamespacedConfigMap(ns('live'));
    await core.deleteNamespacedConfigMap({ namespace: 'w', name: 'live' });
    await until(() => live.events.length === 3, 'live events');
    live.stop();
    expect(live.events.slice(1).map((e) => `${e.type} ${e.object.metadata!['name']}`)).to.deep.equal([
      'ADDED live',
      'DELETED live',
    ]);
  });

  it('writes newline-delimited {type, object} JSON over a chunked response', async () => {
    const watch = await rawWatch(cluster, '/api/v1/namespaces/w/configmaps?watch=1&resourceVersion=0');
    await until(() => watch.lines.length >= 1, 'a line');
    watch.stop();
    expect(watch.status).to.equal(200);
    expect(Object.keys(JSON.parse(watch.lines[0]!))).to.deep.equal(['type', 'object']);
  });

  it('resumes from a resourceVersion by replaying later events only', async () => {
    const from = cluster.resourceVersion();
    await core.createNamespacedConfigMap(ns('after-1'));
    const cm = await core.createNamespacedConfigMap(ns('after-2'));
    await core.replaceNamespacedConfigMap({ namespace: 'w', name: 'after-2', body: { ...cm, data: { a: 'b' } } });
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/w/configmaps', { resourceVersion: from });
    await until(() => watch.events.length === 3, 'replayed events');
    watch.stop();
    expect(watch.events.map((e) => `${e.type} ${e.object.metadata!['name']}`)).to.deep.equal([
      'ADDED after-1',
      'ADDED after-2',
      'MODIFIED after-2',
    ]);
  });

  it('answers a compacted resourceVersion with 200 and one 410 Expired ERROR event, then closes', async () => {
    const old = cluster.resourceVersion();
    await core.createNamespacedConfigMap(ns('compact-me'));
    cluster.faults.compact();
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${Number(old) - 1}`,
    );
    await watch.ended;
    expect(watch.status).to.equal(200);
    expect(watch.events).to.have.length(1);
    expect(watch.events[0]).to.deep.equal({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: ${Number(old) - 1} (${cluster.resourceVersion()})`,
        reason: 'Expired',
        code: 410,
      },
    });
  });

  it('expires resourceVersions that fell out of the bounded history window', async () => {
    const old = cluster.resourceVersion();
    for (let i = 0; i < 101; i++) await core.createNamespacedConfigMap(ns(`flood-${i}`));
    const watch = await rawWatch(cluster, `/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${old}`);
    await watch.ended;
    expect(watch.events[0]?.object.code).to.equal(410);
  });

  it('sends BOOKMARK events carrying only the resourceVersion when allowed', async () => {
    const watch = await rawWatch(
      cluster,
      '/api/v1/namespaces/w/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=' +
        cluster.resourceVersion(),
    );
    await until(() => watch.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark');
    watch.stop();
    const bookmark = watch.events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object).to.deep.equal({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: cluster.resourceVersion() },
    });
  });

  it('sends no bookmarks unless asked', async () => {
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/w/configmaps?watch=true&timeoutSeconds=1&resourceVersion=${cluster.resourceVersion()}`,
    );
    await watch.ended;
    expect(watch.events.filter((e) => e.type === 'BOOKMARK')).to.deep.equal([]);
  });

  it('closes the stream cleanly when timeoutSeconds expires', async () => {
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/w/configmaps', {
      timeoutSeconds: 1,
      resourceVersion: cluster.resourceVersion(),
    });
    expect(await watch.done).to.equal(null);
  });

  it('streams initial events then a bookmark annotated initial-events-end for sendInitialEvents', async () => {
    const watch = await rawWatch(
      cluster,
      '/api/v1/namespaces/sel/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    await core.createNamespacedConfigMap({ namespace: 'sel', body: { metadata: { name: 'streamed-live' } } });
    await until(() => watch.events.some((e) => e.object.metadata?.['name'] === 'streamed-live'), 'live event');
    watch.stop();
    const end = watch.events.findIndex((e) => e.type === 'BOOKMARK');
    expect(watch.events[end]!.object.metadata).to.deep.equal({
      resourceVersion: watch.events[end]!.object.metadata!['resourceVersion'],
      annotations: { 'k8s.io/initial-events-end': 'true' },
    });
    expect(watch.events.slice(0, end).every((e) => e.type === 'ADDED')).to.equal(true);
  });

  it('starts at the most recent state, without synthetic events, for sendInitialEvents=false', async () => {
    await core.createNamespacedConfigMap({ namespace: 'sel', body: { metadata: { name: 'before-false' } } });
    const watch = await rawWatch(
      cluster,
      '/api/v1/namespaces/sel/configmaps?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    await core.createNamespacedConfigMap({ namespace: 'sel', body: { metadata: { name: 'after-false' } } });
    await until(() => watch.events.some((e) => e.type === 'ADDED'), 'live event');
    watch.stop();
    expect(watch.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata?.['name'])).to.deep.equal([
      'after-false',
    ]);
  });

  it('streams initial events without the end bookmark when bookmarks are not allowed', async () => {
    const watch = await rawWatch(
      cluster,
      '/api/v1/namespaces/sel/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1',
    );
    await watch.ended;
    expect(watch.events.length).to.be.greaterThan(0);
    expect(watch.events.every((e) => e.type === 'ADDED')).to.equal(true);
  });

  it('rejects sendInitialEvents without resourceVersionMatch=NotOlderThan with 422 on ListOptions', async () => {
    const res = await send(
      cluster,
      'GET',
      '/api/v1/namespaces/w/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true',
    );
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    const list = await send(cluster, 'GET', '/api/v1/namespaces/w/configmaps?sendInitialEvents=true');
    expect(list.status).to.equal(422);
    expect(list.body.details.causes.map((c: any) => c.field)).to.deep.equal(['sendInitialEvents']);
  });

  it('turns selector transitions into ADDED and DELETED, like the watch cache', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'sel',
      body: { metadata: { name: 'flip', labels: { on: 'no' } } },
    });
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/sel/configmaps', {
      labelSelector: 'on=yes',
      resourceVersion: cluster.resourceVersion(),
    });
    const on = await core.replaceNamespacedConfigMap({
      namespace: 'sel',
      name: 'flip',
      body: { ...cm, metadata: { ...cm.metadata, resourceVersion: undefined, labels: { on: 'yes' } } },
    });
    const touched = await core.replaceNamespacedConfigMap({
      namespace: 'sel',
      name: 'flip',
      body: { ...on, data: { a: '1' } },
    });
    const off = await core.replaceNamespacedConfigMap({
      namespace: 'sel',
      name: 'flip',
      body: { ...touched, metadata: { ...touched.metadata, labels: { on: 'no' } } },
    });
    await until(() => watch.events.length === 3, 'three transitions');
    watch.stop();
    expect(watch.events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
    const deleted = watch.events[2]!.object;
    expect(deleted.metadata!['labels']).to.deep.equal({ on: 'yes' });
    expect(deleted.metadata!['resourceVersion']).to.equal(off.metadata?.resourceVersion);
  });

  it('watches a single object through a metadata.name field selector, as kubectl get -w does', async () => {
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/sel/configmaps', {
      fieldSelector: 'metadata.name=solo',
      resourceVersion: cluster.resourceVersion(),
    });
    await core.createNamespacedConfigMap({ namespace: 'sel', body: { metadata: { name: 'other' } } });
    await core.createNamespacedConfigMap({ namespace: 'sel', body: { metadata: { name: 'solo' } } });
    await until(() => watch.events.length === 1, 'solo event');
    watch.stop();
    expect(watch.events[0]!.object.metadata!['name']).to.equal('solo');
  });

  it('sends PartialObjectMetadata events for a metadata-only Accept header', async () => {
    const watch = await rawWatch(cluster, '/api/v1/namespaces/sel/configmaps?watch=true', {
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    });
    await until(() => watch.events.length > 0, 'an event');
    watch.stop();
    expect(watch.events[0]!.object).to.have.keys('kind', 'apiVersion', 'metadata');
    expect(watch.events[0]!.object.kind).to.equal('PartialObjectMetadata');
  });

  it('rejects a selector the resource does not support before streaming', async () => {
    const res = await send(
      cluster,
      'GET',
      '/api/v1/namespaces/sel/configmaps?watch=true&fieldSelector=status.phase%3DRunning',
    );
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal(
      '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });

  it('watches across all namespaces, and through the legacy /watch/ path prefix', async () => {
    const all = await clientWatch(cluster.kubeConfig, '/api/v1/configmaps', {
      resourceVersion: cluster.resourceVersion(),
    });
    const legacy = await rawWatch(
      cluster,
      `/api/v1/watch/namespaces/w/configmaps?resourceVersion=${cluster.resourceVersion()}`,
    );
    await core.createNamespacedConfigMap({ namespace: 'w', body: { metadata: { name: 'everywhere' } } });
    await until(() => all.events.length === 1 && legacy.events.length === 1, 'events on both');
    all.stop();
    legacy.stop();
    expect(all.events[0]!.object.metadata!['namespace']).to.equal('w');
  });
  it('accepts a watch from a resourceVersion ahead of the server and sends only events past it', async () => {
    const ahead = Number(cluster.resourceVersion()) + 2;
    const watch = await rawWatch(cluster, `/api/v1/namespaces/w/configmaps?watch=1&resourceVersion=${ahead}`);
    try {
      expect(watch.status).to.equal(200);
      for (const name of ['future-1', 'future-2', 'future-3']) await core.createNamespacedConfigMap(ns(name));
      await until(() => watch.events.length >= 1, 'the event past the requested resourceVersion');
      expect(watch.events.map((e) => e.object.metadata?.['name'])).to.deep.equal(['future-3']);
    } finally {
      watch.stop();
    }
    const streaming = await send(
      cluster,
      'GET',
      `/api/v1/namespaces/w/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${Number(cluster.resourceVersion()) + 5}`,
    );
    expect(streaming.status).to.equal(504);
  });
});
