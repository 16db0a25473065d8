/**
 * `finalizer` over a scripted transport: which step runs in each state, and what goes over the wire.
 */
import { expect } from 'chai';
import { asyncScheduler, firstValueFrom, of } from 'rxjs';
import { finalizer, FinalizerNameError } from '../../src/client/finalizer/index.js';
import { resourceClient } from '../../src/client/resource/index.js';
import type { TransportRequest, TransportResponse } from '../../src/transport/index.js';
import type { Observable } from 'rxjs';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { apiError, conflict, fail, ok, scriptedTransport } from './support/scripted-transport.js';

interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: Record<string, unknown>;
}

const NAME = 'example.com/cleanup';
const widget = (resourceVersion: string, metadata: Widget['metadata'] = {}): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', resourceVersion, ...metadata },
});
const deleting = { deletionTimestamp: new Date('2026-01-01T00:00:00Z') };

/** A finalizer over a scripted transport, with recording handlers. */
function setup(
  script: (request: TransportRequest, index: number) => Observable<TransportResponse> = () =>
    fail(new Error('no request expected')),
) {
  const scripted = scriptedTransport(asyncScheduler, script);
  const client = resourceClient<Widget>(
    scripted.transport,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { namespace: 'ns', fieldManager: 'widgets', statusSubresource: false },
  );
  const steps: string[] = [];
  const handle = finalizer(client, NAME, {
    apply: (object) => {
      steps.push(`apply@${object.metadata?.resourceVersion}`);
      return { requeueAfter: 30_000 };
    },
    cleanup: (object) => {
      steps.push(`cleanup@${object.metadata?.resourceVersion}`);
      return Promise.resolve({ requeueAfter: 1 });
    },
  });
  return { scripted, steps, handle };
}

describe('client: finalizer', () => {
  it('does nothing for an object that is gone', async () => {
    const { scripted, steps, handle } = setup();
    expect(await firstValueFrom(handle({ object: undefined }))).to.equal(undefined);
    expect(steps).to.deep.equal([]);
    expect(scripted.requests).to.deep.equal([]);
  });

  it('adds the finalizer with a guarded patch before the first apply, then applies the written object', async () => {
    const { scripted, steps, handle } = setup(() => ok(widget('6', { finalizers: ['other.io/keep', NAME] }), 0));
    const result = await firstValueFrom(handle({ object: widget('5', { finalizers: ['other.io/keep'] }) }));
    expect(result).to.deep.equal({ requeueAfter: 30_000 });
    expect(steps).to.deep.equal(['apply@6']);
    expect(scripted.requests.map((r) => [r.method, r.path, r.contentType])).to.deep.equal([
      ['PATCH', '/api/v1/namespaces/ns/configmaps/w', 'application/json-patch+json'],
    ]);
    expect(scripted.requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'add', path: '/metadata/finalizers/1', value: NAME },
    ]);
  });

  it('only applies an object that already carries the finalizer', async () => {
    const { scripted, steps, handle } = setup();
    expect(await firstValueFrom(handle({ object: widget('5', { finalizers: [NAME] }) }))).to.deep.equal({
      requeueAfter: 30_000,
    });
    expect(steps).to.deep.equal(['apply@5']);
    expect(scripted.requests).to.have.length(0);
  });

  it('cleans up an object being deleted, then removes only its own finalizer, and returns what cleanup returned', async () => {
    const { scripted, steps, handle } = setup(() => ok(widget('8', { ...deleting, finalizers: ['other.io/keep'] }), 0));
    const result = await firstValueFrom(
      handle({ object: widget('7', { ...deleting, finalizers: ['other.io/keep', NAME] }) }),
    );
    expect(result).to.deep.equal({ requeueAfter: 1 });
    expect(steps).to.deep.equal(['cleanup@7']);
    expect(scripted.requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
  });

  it('runs neither step for an object being deleted without the finalizer', async () => {
    const { scripted, steps, handle } = setup();
    expect(
      await firstValueFrom(handle({ object: widget('7', { ...deleting, finalizers: ['other.io/keep'] }) })),
    ).to.equal(undefined);
    expect(steps).to.deep.equal([]);
    expect(scripted.requests).to.have.length(0);
  });

  it('keeps the finalizer when cleanup fails, and fails with its error', async () => {
    const scripted = scriptedTransport(asyncScheduler, () => fail(new Error('no request expected')));
    const client = resourceClient<Widget>(
      scripted.transport,
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'ns' },
    );
    const boom = new Error('bucket not empty');
    const handle = finalizer(client, NAME, { apply: () => undefined, cleanup: () => Promise.reject(boom) });
    const error = await firstValueFrom(handle({ object: widget('7', { ...deleting, finalizers: [NAME] }) })).catch(
      (e: unknown) => e,
    );
    expect(error).to.equal(boom);
    expect(scripted.requests).to.have.length(0);
  });

  it('counts a removal that finds the object gone as done', async () => {
    const answers = [fail(conflict(), 0), fail(apiError(404, 'NotFound', 'configmaps "w" not found'), 0)];
    const { handle, steps } = setup((_, i) => answers[i]!);
    expect(await firstValueFrom(handle({ object: widget('7', { ...deleting, finalizers: [NAME] }) }))).to.deep.equal({
      requeueAfter: 1,
    });
    expect(steps).to.deep.equal(['cleanup@7']);
  });

  it('neither adds nor applies when a conflict shows the object started its deletion meanwhile', async () => {
    const answers = [fail(conflict(), 0), ok(widget('9', { ...deleting, finalizers: ['other.io/keep'] }), 0)];
    const { scripted, steps, handle } = setup((_, i) => answers[i]!);
    expect(await firstValueFrom(handle({ object: widget('5') }))).to.equal(undefined);
    expect(steps).to.deep.equal([]);
    expect(scripted.requests.map((r) => r.method)).to.deep.equal(['PATCH', 'GET']);
  });

  it('takes a handler result as a value, a Promise or an Observable (first value, or undefined on bare completion)', async () => {
    const scripted = scriptedTransport(asyncScheduler, () => fail(new Error('no request expected')));
    const client = resourceClient<Widget>(
      scripted.transport,
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'ns' },
    );
    const alive = { object: widget('5', { finalizers: [NAME] }) };
    const results = [
      await firstValueFrom(finalizer(client, NAME, { apply: () => of('a', 'b'), cleanup: () => undefined })(alive)),
      await firstValueFrom(finalizer(client, NAME, { apply: () => of(), cleanup: () => undefined })(alive)),
      await firstValueFrom(finalizer(client, NAME, { apply: async () => 'p', cleanup: () => undefined })(alive)),
    ];
    expect(results).to.deep.equal(['a', undefined, 'p']);
  });

  it('refuses a finalizer name that is not qualified', () => {
    const { scripted } = setup();
    const client = resourceClient<Widget>(scripted.transport, { apiVersion: 'v1', kind: 'ConfigMap' });
    expect(() => finalizer(client, 'cleanup', { apply: () => undefined, cleanup: () => undefined })).to.throw(
      FinalizerNameError,
      /must be qualified/,
    );
  });
});
