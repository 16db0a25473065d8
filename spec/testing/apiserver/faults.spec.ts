import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { clientWatch, failure, rawWatch, send, until } from './helpers.js';

describe('in-memory API server: fault injection', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;

  before(async () => {
    cluster = await startTestCluster({ token: 'fault-token', namespaces: ['f'] });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(() => cluster.faults.clear());
  after(() => cluster.stop());

  it('dropWatches(clean) ends open watches like a server-side close', async () => {
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/f/configmaps', {
      resourceVersion: cluster.resourceVersion(),
    });
    await until(() => cluster.faults.dropWatches({ mode: 'clean' }) === 1, 'the watch to register', 2000);
    expect(await watch.done).to.equal(null);
  });

  it('dropWatches(abrupt) destroys the socket so the client sees an error', async () => {
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=${cluster.resourceVersion()}`,
    );
    let dropped = 0;
    await until(() => (dropped += cluster.faults.dropWatches({ mode: 'abrupt' })) > 0, 'a watch to drop', 2000);
    const { error } = await watch.ended;
    expect(error).to.be.instanceOf(Error);
  });

  it('failNext answers the next matching requests with the given Status, then recovers', async () => {
    cluster.faults.failNext({
      count: 2,
      method: 'GET',
      path: '/api/v1/namespaces/f/configmaps',
      status: 429,
      retryAfterSeconds: 3,
    });
    const first = await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps');
    expect(first.status).to.equal(429);
    expect(first.headers.get('retry-after')).to.equal('3');
    expect(first.body).to.deep.include({
      reason: 'TooManyRequests',
      message: 'Too many requests, please try again later.',
      details: { retryAfterSeconds: 3 },
    });
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps')).status).to.equal(429);
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps')).status).to.equal(200);
  });

  it('failNext reports 500, 503 and 403 with the real reasons to client-node', async () => {
    const cases: Array<[number, string]> = [
      [500, 'InternalError'],
      [503, 'ServiceUnavailable'],
      [403, 'Forbidden'],
    ];
    for (const [status, reason] of cases) {
      cluster.faults.failNext({ status, path: /configmaps/ });
      const { code, body } = await failure(core.listNamespacedConfigMap({ namespace: 'f' }));
      expect(code).to.equal(status);
      expect(body.reason).to.equal(reason);
      if (status === 403) {
        expect(body.message).to.equal(
          'configmaps is forbidden: User "system:serviceaccount:default:rxkube-test" cannot list resource "configmaps" in API group "" in the namespace "f"',
        );
      }
    }
  });

  it('failNext with a message answers it in place of the real wording, keeping the reason and Retry-After', async () => {
    const quota =
      'configmaps "q" is forbidden: exceeded quota: compute, requested: configmaps=1, used: configmaps=2, limited: configmaps=2';
    cluster.faults.failNext({ status: 403, method: 'POST', message: quota });
    const denied = await send(cluster, 'POST', '/api/v1/namespaces/f/configmaps', { metadata: { name: 'q' } });
    expect([denied.status, denied.body.reason, denied.body.message]).to.deep.equal([403, 'Forbidden', quota]);
    const armed = await send(cluster, 'POST', '/__rxkube/faults/failNext', {
      status: 429,
      message: 'slow down',
      retryAfterSeconds: 4,
    });
    expect(armed.status).to.equal(200);
    const throttled = await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps');
    expect([
      throttled.status,
      throttled.body.reason,
      throttled.body.message,
      throttled.headers.get('retry-after'),
    ]).to.deep.equal([429, 'TooManyRequests', 'slow down', '4']);
  });

  it('failNext leaves non-matching requests alone', async () => {
    cluster.faults.failNext({ status: 500, method: 'POST' });
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps')).status).to.equal(200);
  });

  it('compact expires watches from older resourceVersions', async () => {
    const old = cluster.resourceVersion();
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 'c1' } } });
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 'c2' } } });
    cluster.faults.compact();
    const watch = await rawWatch(cluster, `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=${old}`);
    await watch.ended;
    expect(watch.events[0]?.type).to.equal('ERROR');
    expect(watch.events[0]?.object.code).to.equal(410);
  });

  it('stallWatches holds events and then delivers them in order', async () => {
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=${cluster.resourceVersion()}`,
    );
    cluster.faults.stallWatches(1000);
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 's1' } } });
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 's2' } } });
    const probe = await rawWatch(cluster, `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=0`);
    probe.stop();
    expect(watch.events).to.have.length(0);
    await until(() => watch.events.length === 2, 'flushed events');
    watch.stop();
    expect(watch.events.map((e) => e.object.metadata?.['name'])).to.deep.equal(['s1', 's2']);
  });

  it('injectMalformedLine writes a bad line that a client must survive', async () => {
    for (const kind of ['malformed', 'truncated'] as const) {
      const watch = await rawWatch(
        cluster,
        `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=${cluster.resourceVersion()}`,
      );
      let written = 0;
      await until(() => (written = cluster.faults.injectMalformedLine({ kind })) > 0, 'stream registered', 2000);
      await until(() => watch.lines.length >= written, 'bad line');
      watch.stop();
      expect(() => JSON.parse(watch.lines[0]!)).to.throw();
    }
  });

  it('latency delays responses without changing them', async () => {
    cluster.faults.latency(400);
    const order: string[] = [];
    const slow = send(cluster, 'GET', '/api/v1/namespaces/f/configmaps').then((r) => order.push(`slow ${r.status}`));
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the slow request reach the server
    cluster.faults.latency(0);
    await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps').then((r) => order.push(`fast ${r.status}`));
    await slow;
    expect(order).to.deep.equal(['fast 200', 'slow 200']);
  });

  it('restart drops every connection but keeps state and the port', async () => {
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 'survivor' } } });
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=${cluster.resourceVersion()}`,
    );
    cluster.faults.restart();
    await watch.ended;
    const read = await core.readNamespacedConfigMap({ namespace: 'f', name: 'survivor' });
    expect(read.metadata?.name).to.equal('survivor');
  });

  it('exposes the same faults over the admin endpoint, which requires the token', async () => {
    const denied = await fetch(`${cluster.url}/__rxkube/faults/failNext`, { method: 'POST', body: '{"status":500}' });
    expect(denied.status).to.equal(401);
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps')).status).to.equal(200);
    const armed = await send(cluster, 'POST', '/__rxkube/faults/failNext', {
      status: 503,
      pathRegex: 'secrets',
      retryAfterSeconds: 2,
    });
    expect(armed.status).to.equal(200);
    const hit = await send(cluster, 'GET', '/api/v1/namespaces/f/secrets');
    expect(hit.status).to.equal(503);
    expect(hit.headers.get('retry-after')).to.equal('2');
    const bad = await send(cluster, 'POST', '/__rxkube/faults/latency', { ms: 'slow' });
    expect(bad.status).to.equal(400);
    const unknown = await send(cluster, 'POST', '/__rxkube/faults/explode', {});
    expect(unknown.status).to.equal(404);
    const rv = await send(cluster, 'GET', '/__rxkube/resourceVersion');
    expect(rv.body.resourceVersion).to.equal(cluster.resourceVersion());
  });

  it('conflictNext answers the next update of one object with the real 409 Conflict, storing nothing, then lets writes through', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'f',
      body: { metadata: { name: 'contended' }, data: { v: '0' } },
    });
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 'bystander' } } });
    cluster.faults.conflictNext({ path: '/api/v1/namespaces/f/configmaps/contended' });
    const patch = (name: string, v: string) =>
      send(
        cluster,
        'PATCH',
        `/api/v1/namespaces/f/configmaps/${name}`,
        { data: { v } },
        'application/merge-patch+json',
      );
    expect((await patch('bystander', '1')).status).to.equal(200);
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps/contended')).status).to.equal(200);
    const conflict = await patch('contended', '1');
    expect(conflict.status).to.equal(409);
    expect(conflict.body).to.deep.include({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on configmaps "contended": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'contended', kind: 'configmaps' },
    });
    expect((await core.readNamespacedConfigMap({ namespace: 'f', name: 'contended' })).data).to.deep.equal({ v: '0' });
    expect((await patch('contended', '2')).status).to.equal(200);
  });

  it('failWrites fails the next writes with 429 and Retry-After, or 500, and lets reads through', async () => {
    cluster.faults.failWrites({ status: 429, retryAfterSeconds: 4 });
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps')).status).to.equal(200);
    const limited = await send(cluster, 'POST', '/api/v1/namespaces/f/configmaps', { metadata: { name: 'w1' } });
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.equal('4');
    expect(limited.body).to.deep.include({ reason: 'TooManyRequests', details: { retryAfterSeconds: 4 } });
    cluster.faults.failWrites({ status: 500, count: 2 });
    expect(
      (await send(cluster, 'POST', '/api/v1/namespaces/f/configmaps', { metadata: { name: 'w1' } })).body.reason,
    ).to.equal('InternalError');
    expect((await send(cluster, 'DELETE', '/api/v1/namespaces/f/configmaps/survivor')).status).to.equal(500);
    expect(
      (await send(cluster, 'POST', '/api/v1/namespaces/f/configmaps', { metadata: { name: 'w1' } })).status,
    ).to.equal(201);
    expect(() => cluster.faults.failWrites({ status: 200 })).to.throw(RangeError);
  });

  it('exposes the write faults over the admin endpoint, with 400 for bad options', async () => {
    await core.createNamespacedConfigMap({ namespace: 'f', body: { metadata: { name: 'admin-target' } } });
    expect(
      (
        await send(cluster, 'POST', '/__rxkube/faults/conflictNext', {
          path: '/api/v1/namespaces/f/configmaps/admin-target',
        })
      ).status,
    ).to.equal(200);
    expect((await send(cluster, 'DELETE', '/api/v1/namespaces/f/configmaps/admin-target')).status).to.equal(409);
    expect(
      (await send(cluster, 'POST', '/__rxkube/faults/failWrites', { status: 503, retryAfterSeconds: 1 })).status,
    ).to.equal(200);
    expect((await send(cluster, 'DELETE', '/api/v1/namespaces/f/configmaps/admin-target')).status).to.equal(503);
    expect((await send(cluster, 'DELETE', '/api/v1/namespaces/f/configmaps/admin-target')).status).to.equal(200);
    expect((await send(cluster, 'POST', '/__rxkube/faults/conflictNext', { path: 'configmaps' })).status).to.equal(400);
    expect((await send(cluster, 'POST', '/__rxkube/faults/failWrites', { status: 302 })).status).to.equal(400);
  });

  it('restarts over the admin endpoint after answering it: open watches are cut, state is kept', async () => {
    const watch = await rawWatch(
      cluster,
      `/api/v1/namespaces/f/configmaps?watch=1&resourceVersion=${cluster.resourceVersion()}`,
    );
    const answer = await send(cluster, 'POST', '/__rxkube/faults/restart', {});
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ fault: 'restart', result: null });
    await watch.ended;
    expect((await send(cluster, 'GET', '/api/v1/namespaces/f/configmaps')).status).to.equal(200);
  });
});
