import { expect } from 'chai';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import {
  type ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  kubeTransport,
  transportOf,
  type Transport,
  type TransportResponse,
} from '../../src/transport/index.js';

const configMaps = '/api/v1/namespaces/default/configmaps';

describe('transport: the general request, against the in-memory API server', () => {
  let cluster: TestCluster;
  let transport: Transport;

  before(async () => {
    cluster = await startTestCluster({ tls: true, token: 'request-spec' });
    transport = kubeTransport(cluster.kubeConfig);
  });
  after(() => cluster.stop());

  const send = (request: Parameters<Transport['request']>[0]): Promise<TransportResponse> =>
    lastValueFrom(transport.request(request));
  const failure = async (request: Parameters<Transport['request']>[0]): Promise<ApiError> => {
    try {
      await send(request);
    } catch (error) {
      return error as ApiError;
    }
    throw new Error('expected the request to fail');
  };

  it('creates, reads, replaces, patches and deletes, decoding each JSON body', async () => {
    const created = await send({
      method: 'POST',
      path: configMaps,
      body: { metadata: { name: 'a' }, data: { k: '1' } },
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.deep.include({ kind: 'ConfigMap', data: { k: '1' } });
    const read = await send({ method: 'GET', path: `${configMaps}/a` });
    const replaced = await send({
      method: 'PUT',
      path: `${configMaps}/a`,
      body: { ...(read.body as object), data: { k: '2' } },
    });
    expect((replaced.body as { data: unknown }).data).to.deep.equal({ k: '2' });
    const patched = await send({
      method: 'PATCH',
      path: `${configMaps}/a`,
      body: JSON.stringify({ data: { extra: 'x' } }),
      contentType: 'application/merge-patch+json',
    });
    expect((patched.body as { data: unknown }).data).to.deep.equal({ k: '2', extra: 'x' });
    expect(patched.headers['content-type']).to.match(/application\/json/);
    const deleted = await send({ method: 'DELETE', path: `${configMaps}/a` });
    expect(deleted.status).to.equal(200);
    expect(isNotFound(await failure({ method: 'GET', path: `${configMaps}/a` }))).to.equal(true);
  });

  it('types failures from the Status body: conflict, already exists, invalid with its field causes', async () => {
    const first = await send({ method: 'POST', path: configMaps, body: { metadata: { name: 'b' } } });
    const exists = await failure({ method: 'POST', path: configMaps, body: { metadata: { name: 'b' } } });
    expect([isAlreadyExists(exists), isConflict(exists), exists.code, exists.reason]).to.deep.equal([
      true,
      false,
      409,
      'AlreadyExists',
    ]);
    const stale = {
      ...(first.body as { metadata: object }),
      metadata: { ...(first.body as { metadata: object }).metadata, resourceVersion: '1' },
    };
    const conflict = await failure({ method: 'PUT', path: `${configMaps}/b`, body: stale });
    expect([isConflict(conflict), conflict.code]).to.deep.equal([true, 409]);
    const invalid = await failure({ method: 'POST', path: configMaps, body: { metadata: { name: 'Not_A_Name' } } });
    expect(isInvalid(invalid)).to.equal(true);
    expect(invalid.causes.map((c) => c.field)).to.deep.equal(['metadata.name']);
    expect(invalid.details?.kind).to.equal('ConfigMap');
  });

  it('sends nothing until subscribed, and aborts at once on unsubscribe', async () => {
    const request = transport.request({ method: 'POST', path: configMaps, body: { metadata: { name: 'cold' } } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(
      isNotFound(await failure({ method: 'GET', path: `${configMaps}/cold` })),
      'nothing was sent before subscribe',
    ).to.equal(true);
    cluster.faults.latency(2000);
    try {
      const subscription = request.subscribe();
      await new Promise((resolve) => setTimeout(resolve, 100));
      subscription.unsubscribe();
    } finally {
      cluster.faults.latency(0);
    }
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(
      isNotFound(await failure({ method: 'GET', path: `${configMaps}/cold` })),
      'the aborted create never reached the store',
    ).to.equal(true);
  });

  it("surfaces a 429 with its Retry-After and never retries it behind the caller's back", async () => {
    cluster.faults.failNext({ status: 429, retryAfterSeconds: 3, method: 'POST', count: 1 });
    const throttled = await failure({ method: 'POST', path: configMaps, body: { metadata: { name: 'c' } } });
    expect([throttled.code, throttled.retryAfterSeconds]).to.deep.equal([429, 3]);
    expect(isNotFound(await failure({ method: 'GET', path: `${configMaps}/c` }))).to.equal(true);
  });

  it('gives a non-JSON success body as text', async () => {
    const healthz = await firstValueFrom(transport.request({ method: 'GET', path: '/healthz', accept: 'text/plain' }));
    expect(healthz.body).to.equal('ok');
  });
});

describe('transportOf', () => {
  it('takes a transport as it is and a KubeConfig through its one cached kubeTransport', async () => {
    const cluster = await startTestCluster();
    try {
      const transport = kubeTransport(cluster.kubeConfig);
      expect(transportOf(transport)).to.equal(transport);
      expect(transportOf(cluster.kubeConfig)).to.equal(transport);
    } finally {
      await cluster.stop();
    }
  });
});
