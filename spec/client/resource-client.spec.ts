/**
 * The resource client over a scripted transport: the request each call sends, coldness, cancellation and scope.
 */
import { expect } from 'chai';
import { asyncScheduler, firstValueFrom, lastValueFrom, map, of, throwError, timer } from 'rxjs';
import type { V1Pod } from '@kubernetes/client-node';
import { ClientScopeError, resourceClient } from '../../src/client/resource/index.js';
import type { ApiWarning } from '../../src/transport/index.js';
import { ApiError, TransportError } from '../../src/transport/index.js';
import type { TransportRequest, TransportResponse } from '../../src/transport/index.js';
import type { Observable } from 'rxjs';
import { apiError, fail, ok, scriptedTransport } from './support/scripted-transport.js';

const pod: V1Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'ns', resourceVersion: '5' },
  spec: { containers: [] },
};

/** Pods in `ns`, or cluster-wide for `namespace: null`. */
function pods(
  script: (request: TransportRequest, index: number) => Observable<TransportResponse> = () => ok(pod, 0),
  namespace: string | null = 'ns',
) {
  const scripted = scriptedTransport(asyncScheduler, script);
  const client = resourceClient<V1Pod>(
    scripted.transport,
    { apiVersion: 'v1', kind: 'Pod' },
    { namespace: namespace ?? undefined, fieldManager: 'my-controller' },
  );
  return { scripted, client };
}

/** What a request said, without the time it was sent. */
function sent(request: TransportRequest | undefined): Omit<TransportRequest, never> {
  const { method, path, query, body, contentType } = request!;
  const definedQuery = Object.fromEntries(Object.entries(query ?? {}).filter(([, v]) => v !== undefined));
  return {
    method,
    path,
    ...(Object.keys(definedQuery).length > 0 ? { query: definedQuery } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
  };
}

describe('client: resourceClient requests', () => {
  const objectPath = '/api/v1/namespaces/ns/pods/web';

  const cases: Array<[string, (c: ReturnType<typeof pods>['client']) => Observable<unknown>, object]> = [
    ['get', (c) => c.get('web'), { method: 'GET', path: objectPath }],
    [
      'get at a resourceVersion',
      (c) => c.get(pod, { resourceVersion: '0' }),
      { method: 'GET', path: objectPath, query: { resourceVersion: '0' } },
    ],
    [
      'list with selectors and a page size',
      (c) => c.list({ labelSelector: 'app=web', fieldSelector: 'status.phase=Running', limit: 10, continue: 'tok' }),
      {
        method: 'GET',
        path: '/api/v1/namespaces/ns/pods',
        query: { labelSelector: 'app=web', fieldSelector: 'status.phase=Running', limit: 10, continue: 'tok' },
      },
    ],
    [
      'create',
      (c) => c.create(pod, { dryRun: true, fieldValidation: 'Strict' }),
      {
        method: 'POST',
        path: '/api/v1/namespaces/ns/pods',
        query: { dryRun: 'All', fieldManager: 'my-controller', fieldValidation: 'Strict' },
        body: pod,
      },
    ],
    [
      'replace',
      (c) => c.replace(pod),
      { method: 'PUT', path: objectPath, query: { fieldManager: 'my-controller' }, body: pod },
    ],
    [
      'merge patch',
      (c) => c.patch('web', { type: 'merge', body: { metadata: { labels: { a: 'b' } } } }),
      {
        method: 'PATCH',
        path: objectPath,
        query: { fieldManager: 'my-controller' },
        body: { metadata: { labels: { a: 'b' } } },
        contentType: 'application/merge-patch+json',
      },
    ],
    [
      'JSON patch',
      (c) => c.patch('web', { type: 'json', body: [{ op: 'remove', path: '/metadata/labels/a' }] }),
      {
        method: 'PATCH',
        path: objectPath,
        query: { fieldManager: 'my-controller' },
        body: [{ op: 'remove', path: '/metadata/labels/a' }],
        contentType: 'application/json-patch+json',
      },
    ],
    [
      'strategic merge patch',
      (c) => c.patch('web', { type: 'strategic', body: { spec: {} } }, { fieldManager: 'someone' }),
      {
        method: 'PATCH',
        path: objectPath,
        query: { fieldManager: 'someone' },
        body: { spec: {} },
        contentType: 'application/strategic-merge-patch+json',
      },
    ],
    [
      'apply, filling in apiVersion and kind',
      (c) => c.apply({ metadata: { name: 'web', labels: { a: 'b' } } }, { force: true }),
      {
        method: 'PATCH',
        path: objectPath,
        query: { fieldManager: 'my-controller', force: true },
        body: { metadata: { name: 'web', labels: { a: 'b' } }, apiVersion: 'v1', kind: 'Pod' },
        contentType: 'application/apply-patch+yaml',
      },
    ],
    [
      'delete with preconditions and a propagation policy',
      (c) => c.delete(pod, { preconditions: { uid: 'u', resourceVersion: '5' }, propagationPolicy: 'Foreground' }),
      {
        method: 'DELETE',
        path: objectPath,
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          propagationPolicy: 'Foreground',
          preconditions: { uid: 'u', resourceVersion: '5' },
        },
      },
    ],
    ['delete without options', (c) => c.delete('web'), { method: 'DELETE', path: objectPath }],
    [
      'deleteCollection',
      (c) => c.deleteCollection({ labelSelector: 'app=web', dryRun: true, gracePeriodSeconds: 0 }),
      {
        method: 'DELETE',
        path: '/api/v1/namespaces/ns/pods',
        query: { dryRun: 'All', labelSelector: 'app=web' },
        body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
      },
    ],
    ['getStatus', (c) => c.getStatus('web'), { method: 'GET', path: `${objectPath}/status` }],
    [
      'replaceStatus',
      (c) => c.replaceStatus(pod),
      { method: 'PUT', path: `${objectPath}/status`, query: { fieldManager: 'my-controller' }, body: pod },
    ],
    [
      'patchStatus',
      (c) => c.patchStatus('web', { type: 'merge', body: { status: { phase: 'Running' } } }),
      {
        method: 'PATCH',
        path: `${objectPath}/status`,
        query: { fieldManager: 'my-controller' },
        body: { status: { phase: 'Running' } },
        contentType: 'application/merge-patch+json',
      },
    ],
    [
      'applyStatus',
      (c) => c.applyStatus({ metadata: { name: 'web' }, status: { phase: 'Running' } }),
      {
        method: 'PATCH',
        path: `${objectPath}/status`,
        query: { fieldManager: 'my-controller' },
        body: { metadata: { name: 'web' }, status: { phase: 'Running' }, apiVersion: 'v1', kind: 'Pod' },
        contentType: 'application/apply-patch+yaml',
      },
    ],
  ];
  for (const [what, call, expected] of cases) {
    it(`sends one request for ${what}`, async () => {
      const { scripted, client } = pods();
      await lastValueFrom(call(client));
      expect(scripted.requests).to.have.length(1);
      expect(sent(scripted.requests[0])).to.deep.equal(expected);
    });
  }

  it('is cold: nothing is sent before subscription, and each subscription sends its own request', async () => {
    const { scripted, client } = pods();
    const get$ = client.get('web');
    expect(scripted.requests).to.have.length(0);
    await firstValueFrom(get$);
    await firstValueFrom(get$);
    expect(scripted.requests).to.have.length(2);
  });

  it('emits the object the server wrote, resourceVersion included', async () => {
    const written = { ...pod, metadata: { ...pod.metadata, resourceVersion: '6' } };
    const { client } = pods(() => ok(written, 0));
    expect((await firstValueFrom(client.replace(pod))).metadata?.resourceVersion).to.equal('6');
  });

  it('aborts the request in flight on unsubscribe', async () => {
    const { scripted, client } = pods(() => ok(pod, 50));
    const subscription = client.get('web').subscribe();
    subscription.unsubscribe();
    expect(scripted.lines[1]).to.match(/unsubscribed GET \/api\/v1\/namespaces\/ns\/pods\/web$/);
  });

  it('errors with the reason of its signal, aborting the request, and sends nothing when the signal is aborted already', async () => {
    const { scripted, client } = pods(() => ok(pod, 50));
    const controller = new AbortController();
    const result = firstValueFrom(client.get('web', { signal: controller.signal })).catch((e: unknown) => e);
    controller.abort(new Error('reconcile timed out'));
    expect(String(await result)).to.equal('Error: reconcile timed out');
    expect(scripted.lines[1]).to.match(/unsubscribed GET/);
    const again = await firstValueFrom(client.get('web', { signal: controller.signal })).catch((e: unknown) => e);
    expect(String(again)).to.equal('Error: reconcile timed out');
    expect(scripted.requests).to.have.length(1);
  });

  it('passes the transport error through, and never retries it', async () => {
    const error = apiError(500, 'InternalError', 'etcd is down');
    const { scripted, client } = pods(() => fail(error, 0));
    expect(await firstValueFrom(client.create(pod)).catch((e: unknown) => e)).to.equal(error);
    expect(scripted.requests).to.have.length(1);
  });

  it('fails with MalformedResponse when a successful answer is not a JSON object', async () => {
    const { client } = pods(() => ok('<html>proxy</html>', 0));
    const error = await firstValueFrom(client.get('web')).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TransportError);
    expect((error as TransportError).reason).to.equal('MalformedResponse');
    expect((error as Error).message).to.equal(`GET ${objectPath}: expected a JSON object, got 18 characters of text`);
  });

  it('takes the namespace from the object for a cluster-wide client of a namespaced kind', async () => {
    const { scripted, client } = pods(undefined, null);
    await firstValueFrom(client.get(pod));
    await firstValueFrom(client.list());
    expect(scripted.requests.map((r) => r.path)).to.deep.equal([objectPath, '/api/v1/pods']);
  });

  it('refuses, at subscription and without sending, a call with no namespace, another namespace or no name', async () => {
    const { scripted, client } = pods(undefined, null);
    const errors = await Promise.all([
      firstValueFrom(client.get('web')).catch((e: unknown) => e),
      firstValueFrom(client.deleteCollection()).catch((e: unknown) => e),
      firstValueFrom(client.inNamespace('other').replace(pod)).catch((e: unknown) => e),
      firstValueFrom(client.create({ metadata: { namespace: 'ns' } })).then(
        () => 'created',
        (e: unknown) => e,
      ),
      firstValueFrom(client.inNamespace('ns').get({ metadata: {} })).catch((e: unknown) => e),
    ]);
    expect(errors.slice(0, 3).map((e) => e instanceof ClientScopeError)).to.deep.equal([true, true, true]);
    expect(String(errors[0])).to.contain('Pod is namespaced');
    expect(String(errors[2])).to.contain('the object is in namespace "ns" but the client is scoped to "other"');
    expect(errors[3]).to.equal('created', "a create without a name is the server's to judge (generateName)");
    expect(String(errors[4])).to.contain('the object has no metadata.name');
    expect(scripted.requests.map((r) => r.method)).to.deep.equal(['POST']);
  });

  it('sends no namespace for a cluster-scoped kind, and refuses a namespaced client of one', async () => {
    const scripted = scriptedTransport(asyncScheduler, () => of({ status: 200, body: {}, headers: {} }));
    const nodes = resourceClient(scripted.transport, { apiVersion: 'v1', kind: 'Node' });
    await firstValueFrom(nodes.get({ metadata: { name: 'n1' } }));
    expect(scripted.requests[0]!.path).to.equal('/api/v1/nodes/n1');
    const error = await firstValueFrom(nodes.inNamespace('ns').get('n1')).catch((e: unknown) => e);
    expect(String(error)).to.contain('Node is cluster-scoped');
  });

  it('resolves a custom kind through discovery once per connection, on first use', async () => {
    let discoveries = 0;
    const scripted = scriptedTransport(asyncScheduler, () => ok({}, 0));
    const transport = {
      ...scripted.transport,
      get: () => {
        discoveries++;
        return of({
          resources: [
            { name: 'widgets', kind: 'Widget', namespaced: true },
            { name: 'widgets/status', kind: 'Widget', namespaced: true },
          ],
        });
      },
    };
    const widgets = resourceClient(transport, { apiVersion: 'example.com/v1', kind: 'Widget' }, { namespace: 'ns' });
    expect(discoveries).to.equal(0);
    await firstValueFrom(widgets.get('w'));
    await firstValueFrom(widgets.get('w'));
    expect(discoveries).to.equal(1);
    expect(scripted.requests.map((r) => r.path)).to.deep.equal([
      '/apis/example.com/v1/namespaces/ns/widgets/w',
      '/apis/example.com/v1/namespaces/ns/widgets/w',
    ]);
  });

  it('fails a call of a kind discovery does not know with UnknownResourceError', async () => {
    const scripted = scriptedTransport(asyncScheduler, () => ok({}, 0));
    const transport = { ...scripted.transport, get: () => throwError(() => apiError(404, 'NotFound', 'not found')) };
    const error = await firstValueFrom(
      resourceClient(transport, { apiVersion: 'nope.io/v1', kind: 'Nope' }).list(),
    ).catch((e: unknown) => e);
    expect((error as Error).name).to.equal('UnknownResourceError');
  });
});

describe('client: the API server warnings', () => {
  const warned = (texts: string[]) => () =>
    timer(0).pipe(map((): TransportResponse => ({ status: 200, body: pod, headers: {}, warnings: texts })));

  /** The process warnings emitted while `run` runs, as `type: message`. */
  async function processWarnings(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const listener = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
    process.on('warning', listener);
    try {
      await run();
      // Process warnings are delivered on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    return seen;
  }

  it('hands each warning of an answer to onWarning with the request it answered, refused requests included', async () => {
    const seen: ApiWarning[] = [];
    const refusal = new ApiError(422, 'Invalid', 'nope', undefined, undefined, ['unknown field "spec.colour"']);
    const scripted = scriptedTransport(asyncScheduler, (_request, index) =>
      index === 0 ? warned(['a', 'b'])() : fail(refusal, 0),
    );
    const client = resourceClient<V1Pod>(
      scripted.transport,
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: 'ns', onWarning: (w) => seen.push(w) },
    );
    await firstValueFrom(client.create(pod));
    const error = await firstValueFrom(client.replace(pod)).catch((e: unknown) => e);
    expect(error).to.equal(refusal);
    expect(seen).to.deep.equal([
      { text: 'a', method: 'POST', path: '/api/v1/namespaces/ns/pods' },
      { text: 'b', method: 'POST', path: '/api/v1/namespaces/ns/pods' },
      { text: 'unknown field "spec.colour"', method: 'PUT', path: '/api/v1/namespaces/ns/pods/web' },
    ]);
  });

  it('hands the warnings of the discovery answers it needed to onWarning: the kind and its status subresource', async () => {
    const seen: string[] = [];
    const scripted = scriptedTransport(asyncScheduler, () =>
      ok(
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', namespace: 'ns', resourceVersion: '6' },
        },
        0,
      ),
    );
    const discovery = {
      resources: [
        { name: 'widgets', kind: 'Widget', namespaced: true },
        { name: 'widgets/status', kind: 'Widget', namespaced: true },
      ],
    };
    const transport = {
      ...scripted.transport,
      get: (path: string, _query: unknown, options?: { onWarnings?: (texts: readonly string[]) => void }) => {
        options?.onWarnings?.([`${path} is deprecated`]);
        return of(discovery);
      },
    };
    const widgets = resourceClient<V1Pod>(
      transport,
      { apiVersion: 'example.com/v1', kind: 'Widget' },
      {
        namespace: 'ns',
        onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`),
      },
    );
    await firstValueFrom(
      widgets.mutate(
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', namespace: 'ns', resourceVersion: '5' },
        } as V1Pod,
        (draft) => {
          draft.status = { phase: 'Running' };
        },
      ),
    );
    // One discovery answer resolves the kind, another says whether it has a status subresource.
    expect(seen).to.deep.equal([
      'GET /apis/example.com/v1 /apis/example.com/v1 is deprecated',
      'GET /apis/example.com/v1 /apis/example.com/v1 is deprecated',
    ]);
    expect(scripted.requests.map((request) => `${request.method} ${request.path}`)).to.deep.equal([
      'PATCH /apis/example.com/v1/namespaces/ns/widgets/w/status',
    ]);
  });

  it('refuses an onWarning that is not a function where the client is made', () => {
    const scripted = scriptedTransport(asyncScheduler, warned([]));
    expect(() =>
      resourceClient<V1Pod>(scripted.transport, { apiVersion: 'v1', kind: 'Pod' }, { onWarning: 'log' as never }),
    ).to.throw(TypeError, 'resourceClient: onWarning must be a function');
  });

  it('prints each distinct warning once per process by default', async () => {
    const text = `deprecated ${Math.random()}`;
    const scripted = scriptedTransport(asyncScheduler, warned([text, text]));
    const client = resourceClient<V1Pod>(scripted.transport, { apiVersion: 'v1', kind: 'Pod' }, { namespace: 'ns' });
    const printed = await processWarnings(async () => {
      await firstValueFrom(client.get('web'));
      await firstValueFrom(client.inNamespace('other').get('web'));
    });
    expect(printed).to.deep.equal([`KubernetesWarning: ${text}`]);
  });

  it('reports a handler that throws as a process warning and still completes the call', async () => {
    const scripted = scriptedTransport(asyncScheduler, warned(['x']));
    const client = resourceClient<V1Pod>(
      scripted.transport,
      { apiVersion: 'v1', kind: 'Pod' },
      {
        namespace: 'ns',
        onWarning: () => {
          throw new Error('handler broke');
        },
      },
    );
    let result: unknown;
    const printed = await processWarnings(async () => {
      result = await firstValueFrom(client.get('web'));
    });
    expect(result).to.deep.equal(pod);
    expect(printed).to.deep.equal(['Error: handler broke']);
  });
});
