/**
 * The client against the in-memory server under injected faults: every failure is one typed error from one
 * request, and only `mutate` retries, and only conflicts.
 */
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import type { Observable } from 'rxjs';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import type { ResourceClient } from '../../src/client/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import type { TestCluster } from '../../src/testing/index.js';
import {
  type ApiError,
  TransportError,
  isConflict,
  isForbidden,
  isServerError,
  isTooManyRequests,
} from '../../src/transport/index.js';
import { recordingTransport } from './support/recording-transport.js';
import type { RecordedRequest } from './support/recording-transport.js';

describe('client: typed errors under injected faults (in-memory server)', () => {
  let cluster: TestCluster;
  let counter = 0;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => {
    await cluster.stop();
  });
  afterEach(() => cluster.faults.clear());

  /** A client over a recording transport, and a fresh ConfigMap to act on. */
  async function setup(): Promise<{
    client: ResourceClient<V1ConfigMap>;
    requests: RecordedRequest[];
    object: V1ConfigMap;
  }> {
    const recorded = recordingTransport(cluster.kubeConfig);
    const client = resourceClient<V1ConfigMap>(
      recorded.transport,
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'default', fieldManager: 'faults' },
    );
    const object = await firstValueFrom(client.create({ metadata: { name: `cm-${++counter}` }, data: { a: '1' } }));
    recorded.requests.length = 0;
    return { client, requests: recorded.requests, object };
  }

  const failure = (call: Observable<unknown>): Promise<unknown> =>
    firstValueFrom(call).then(
      () => {
        throw new Error('expected the call to fail');
      },
      (error: unknown) => error,
    );

  /** Every write the client has, on `object`. */
  const writes = (client: ResourceClient<V1ConfigMap>, object: V1ConfigMap): Array<[string, Observable<unknown>]> => [
    ['create', client.create({ metadata: { name: `new-${++counter}` } })],
    ['replace', client.replace({ ...object, data: { a: '2' } })],
    ['patch', client.patch(object, { type: 'merge', body: { data: { a: '2' } } })],
    ['apply', client.apply({ metadata: { name: object.metadata!.name }, data: { a: '2' } }, { force: true })],
    ['delete', client.delete(object)],
    [
      'mutate',
      client.mutate(object, (draft) => {
        draft.data = { a: '2' };
      }),
    ],
  ];

  for (const [status, check, expectation] of [
    [500, isServerError, 'a 500'],
    [403, isForbidden, 'a 403'],
    [429, isTooManyRequests, 'a 429 with Retry-After'],
  ] as const) {
    it(`gives ${expectation} as a typed ApiError after exactly one request, for every write`, async () => {
      const { client, requests, object } = await setup();
      for (const [what, call] of writes(client, object)) {
        cluster.faults.failNext({ status, retryAfterSeconds: status === 429 ? 7 : undefined });
        const sent = requests.length;
        const error = await failure(call);
        expect(check(error), `${what}: ${String(error)}`).to.equal(true);
        expect(requests.length - sent, what).to.equal(1);
        if (status === 429) expect((error as ApiError).retryAfterSeconds, what).to.equal(7);
        if (status === 403)
          expect((error as ApiError).message, what).to.match(
            /^configmaps( "cm-\d+")? is forbidden: User ".*" cannot \w+ resource "configmaps" in API group "" in the namespace "default"$/,
          );
      }
    });
  }

  it('fails a write cut by a dropped connection with a TransportError, and does not send it again', async () => {
    const { client, requests, object } = await setup();
    for (const [what, call] of writes(client, object)) {
      // The server holds the answer far longer than the request takes to arrive, so the cut lands mid-request.
      cluster.faults.latency(10_000);
      const pending = failure(call);
      await new Promise((resolve) => setTimeout(resolve, 250));
      cluster.faults.restart();
      const error = await pending;
      cluster.faults.latency(0);
      expect(error, `${what}: ${String(error)}`).to.be.instanceOf(TransportError);
      expect(
        requests.filter((r) => r.outcome === 'error TransportError'),
        what,
      ).to.have.length(1);
      requests.length = 0;
    }
  });

  it('does not retry a 409 outside mutate', async () => {
    const { client, requests, object } = await setup();
    cluster.faults.failNext({ status: 409, method: 'PATCH' });
    const error = await failure(client.patch(object, { type: 'merge', body: { data: { a: '2' } } }));
    expect(isConflict(error)).to.equal(true);
    expect(requests).to.have.length(1);
  });

  it('retries a 409 inside mutate with a fresh read, and succeeds', async () => {
    const { client, requests, object } = await setup();
    cluster.faults.failNext({ status: 409, method: 'PATCH', count: 2 });
    const written = await firstValueFrom(
      client.mutate(object, (draft) => {
        draft.data = { ...draft.data, b: '2' };
      }),
    );
    expect(written.data).to.deep.equal({ a: '1', b: '2' });
    expect(requests.map((r) => `${r.method} ${r.outcome}`)).to.deep.equal([
      'PATCH error 409',
      'GET 200',
      'PATCH error 409',
      'GET 200',
      'PATCH 200',
    ]);
  });

  it('does not retry a mutate whose re-read fails: the read error is the answer', async () => {
    const { client, requests, object } = await setup();
    cluster.faults.failNext({ status: 409, method: 'PATCH' });
    cluster.faults.failNext({ status: 503, method: 'GET', retryAfterSeconds: 2 });
    const error = await failure(
      client.mutate(object, (draft) => {
        draft.data = { b: '2' };
      }),
    );
    expect((error as ApiError).code).to.equal(503);
    expect(requests.map((r) => `${r.method} ${r.outcome}`)).to.deep.equal(['PATCH error 409', 'GET error 503']);
  });
});
