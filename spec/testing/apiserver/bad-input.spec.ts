import { expect } from 'chai';
import fc from 'fast-check';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { raw, send } from './helpers.js';

describe('in-memory API server: bad input', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ maxBodyBytes: 4096 });
  });
  after(() => cluster.stop());

  it('answers malformed JSON with 400 and stores nothing', async () => {
    const before = cluster.resourceVersion();
    const res = await send(
      cluster,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      '{"metadata": {"name": ',
      'application/json',
    );
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(res.body.message).to.match(
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error/,
    );
    expect(cluster.resourceVersion()).to.equal(before);
  });

  it('answers a body that is not an object with 400', async () => {
    const res = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', '[1,2]');
    expect(res.status).to.equal(400);
  });

  it('answers mistyped metadata with 400 and malformed finalizers with 422, without crashing', async () => {
    const name = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 5 } });
    expect(name.status).to.equal(400);
    expect(name.body.message).to.include('ObjectMeta.metadata.name of type string');
    const finalizers = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'fin', finalizers: 'nope' },
    });
    expect(finalizers.status).to.equal(422);
    const labels = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'lab', labels: { 'bad key!': 'x' } },
    });
    expect(labels.status).to.equal(422);
    expect(labels.body.details.causes[0].field).to.equal('metadata.labels');
  });

  it('answers a create carrying a resourceVersion with the real reasonless 500', async () => {
    const res = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'with-rv', resourceVersion: '5' },
    });
    expect(res.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'resourceVersion should not be set on objects to be created',
      code: 500,
    });
  });

  it('checks finalizer names like the real server: qualified, and standard or domain-prefixed for built-ins', async () => {
    const res = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'badfin', finalizers: ['bad finalizer'] },
    });
    expect(res.status).to.equal(422);
    expect(res.body.details.causes.map((c: any) => c.field)).to.deep.equal([
      'metadata.finalizers',
      'metadata.finalizers[0]',
    ]);
    const standard = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'stdfin', finalizers: ['orphan'] },
    });
    expect(standard.status).to.equal(201);
  });

  it("answers unknown resources and paths with the real 404: a Status in built-in groups, the mux's text elsewhere", async () => {
    for (const path of ['/api/v1/namespaces/default/widgets', '/api/v2', '/api/v1/namespaces/default/pods/a/b/c']) {
      const res = await send(cluster, 'GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.body.message, path).to.equal('the server could not find the requested resource');
    }
    for (const path of ['/apis/nope.io/v1/things', '/not/a/path']) {
      const res = await send(cluster, 'GET', path);
      expect([res.status, res.headers.get('content-type'), res.body], path).to.deep.equal([
        404,
        'text/plain; charset=utf-8',
        '404 page not found\n',
      ]);
    }
  });

  it('answers an oversized body with 413', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { x: 'y'.repeat(10000) } });
    const res = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', big);
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.include({
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 4096',
    });
  });

  it('answers unsupported verbs with 405', async () => {
    const post = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps/x', { metadata: { name: 'x' } });
    expect(post.status).to.equal(405);
    expect(post.body.reason).to.equal('MethodNotAllowed');
    const createAll = await send(cluster, 'POST', '/api/v1/configmaps', { metadata: { name: 'x' } });
    expect(createAll.status).to.equal(405);
  });

  it('answers bad query parameters with 400', async () => {
    for (const query of ['limit=ten', 'resourceVersion=abc', 'watch=maybe', 'timeoutSeconds=x']) {
      const res = await send(cluster, 'GET', `/api/v1/namespaces/default/configmaps?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.kind, query).to.equal('Status');
    }
  });

  it('answers an unsupported request content type with 415, and a body that is not a protobuf envelope with 400', async () => {
    const res = await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', 'x', 'application/cbor');
    expect(res.status).to.equal(415);
    const garbage = await send(
      cluster,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      'x',
      'application/vnd.kubernetes.protobuf',
    );
    expect(garbage.status).to.equal(400);
    expect(garbage.body.message).to.contain('does not appear to be a protobuf message');
  });

  it('accepts YAML bodies, as the real server does', async () => {
    const res = await send(
      cluster,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      'metadata:\n  name: from-yaml\ndata:\n  a: b\n',
      'application/yaml',
    );
    expect(res.status).to.equal(201);
    expect(res.body.data).to.deep.equal({ a: 'b' });
  });

  it('answers any JSON body with a Status or an object, never a 5xx, and stores nothing on failure', async () => {
    await send(cluster, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'target' } });
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ metadata: fc.jsonValue({ maxDepth: 2 }), data: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({
        metadata: fc.record({
          name: fc.string({ maxLength: 10 }),
          labels: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 })),
        }),
      }),
    );
    const request = fc.record({
      method: fc.constantFrom('POST', 'PUT', 'PATCH'),
      body,
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ method, body: value }) => {
        const before = cluster.resourceVersion();
        const path =
          method === 'POST' ? '/api/v1/namespaces/default/configmaps' : '/api/v1/namespaces/default/configmaps/target';
        const res = await send(
          cluster,
          method,
          path,
          JSON.stringify(value),
          method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        );
        expect(res.status, JSON.stringify(res.body)).to.be.lessThan(500);
        expect(res.body).to.be.an('object');
        if (res.status >= 400) {
          expect(res.body.kind).to.equal('Status');
          expect(cluster.resourceVersion()).to.equal(before);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps serving after every kind of bad request', async () => {
    const res = await raw(cluster, '/healthz');
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('ok');
  });
});
