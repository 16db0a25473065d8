/**
 * Contract: the client on custom resources, as plain objects, on both servers. Whether `mutate` sends status
 * apart depends on the CRD's status subresource, which the client learns from discovery.
 */
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import type { KubernetesObject } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import { UnknownResourceError } from '../../src/resources/index.js';
import { ApiError, isNotFound } from '../../src/transport/index.js';
import { recordingTransport } from '../client/support/recording-transport.js';
import { waitForAsync } from '../support/wait.js';
import { contractTargets, entryOf, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  interface Widget extends KubernetesObject {
    spec?: { size?: number };
    status?: { ready?: boolean; observedSize?: number };
  }

  /** A CRD as wire JSON: names, one served version with a schema that keeps spec and status. */
  function crd(
    group: string,
    plural: string,
    kind: string,
    statusSubresource: boolean,
  ): KubernetesObject & { spec: unknown } {
    const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
            ...(statusSubresource ? { subresources: { status: {} } } : {}),
          },
        ],
      },
    };
  }

  describe(`contract (${target.name}): client on custom resources`, () => {
    const session = useContractSession(target, 'contract-client-cr');
    const group = `client-${suffix()}.example.com`;
    const definitions = () =>
      resourceClient(session().connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
    const kinds = () => {
      const recorded = recordingTransport(session().connection);
      const options = { namespace: session().namespace, fieldManager: 'widget-controller' };
      return {
        requests: recorded.requests,
        widgets: resourceClient<Widget>(recorded.transport, { apiVersion: `${group}/v1`, kind: 'Widget' }, options),
        gadgets: resourceClient<Widget>(recorded.transport, { apiVersion: `${group}/v1`, kind: 'Gadget' }, options),
      };
    };

    before(async function () {
      this.timeout(60_000);
      for (const [plural, kind, status] of [
        ['widgets', 'Widget', true],
        ['gadgets', 'Gadget', false],
      ] as const) {
        await firstValueFrom(definitions().create(crd(group, plural, kind, status)));
      }
      // Served once a list answers (the real server establishes a CRD about 2 s after its create).
      await waitForAsync(
        async () => {
          const { widgets, gadgets } = kinds();
          const served = await Promise.all(
            [widgets, gadgets].map((c) =>
              firstValueFrom(c.list()).then(
                () => true,
                () => false,
              ),
            ),
          );
          return served.every(Boolean);
        },
        'both CRDs to be served',
        30_000,
      );
    });

    after(async () => {
      // Against the in-memory target the server is already stopped here: the catch makes that a no-op.
      for (const plural of ['widgets', 'gadgets'])
        await firstValueFrom(definitions().delete(`${plural}.${group}`)).catch(() => undefined);
    });

    it('creates, gets and lists plain custom objects', async () => {
      const { widgets } = kinds();
      const made = await firstValueFrom(
        widgets.create({
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name: `w-${suffix()}` },
          spec: { size: 1 },
        }),
      );
      expect(made.metadata?.generation).to.equal(1);
      expect((await firstValueFrom(widgets.get(made))).spec).to.deep.equal({ size: 1 });
      expect((await firstValueFrom(widgets.list())).items.map((w) => w.metadata?.name)).to.include(made.metadata?.name);
    });

    it('sends status changes of a custom resource with a status subresource there, after the spec, keeping generation for status', async () => {
      const { widgets, requests } = kinds();
      const made = await firstValueFrom(
        widgets.create({
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name: `w-${suffix()}` },
          spec: { size: 1 },
        }),
      );
      const sent = requests.length;
      const both = await firstValueFrom(
        widgets.mutate(made, (draft) => {
          draft.spec!.size = 2;
          draft.status = { ready: false, observedSize: 1 };
        }),
      );
      expect(
        requests.slice(sent).map((r) => `${r.method} ${r.path.endsWith('/status') ? 'status' : 'main'} ${r.outcome}`),
      ).to.deep.equal(['PATCH main 200', 'PATCH status 200']);
      expect(both.metadata?.generation).to.equal(2);
      expect(both.status).to.deep.equal({ ready: false, observedSize: 1 });

      const ready = await firstValueFrom(
        widgets.mutate(both, (draft) => {
          draft.status = { ready: true, observedSize: draft.spec!.size! };
        }),
      );
      expect(ready.metadata?.generation).to.equal(2);
      expect(ready.status).to.deep.equal({ ready: true, observedSize: 2 });
    });

    it('sends status changes with the rest of a custom resource without a status subresource, in one write', async () => {
      const { gadgets, requests } = kinds();
      const made = await firstValueFrom(
        gadgets.create({
          apiVersion: `${group}/v1`,
          kind: 'Gadget',
          metadata: { name: `g-${suffix()}` },
          spec: { size: 1 },
        }),
      );
      const sent = requests.length;
      const written = await firstValueFrom(
        gadgets.mutate(made, (draft) => {
          draft.status = { ready: true };
        }),
      );
      expect(
        requests.slice(sent).map((r) => `${r.method} ${r.path.endsWith('/status') ? 'status' : 'main'} ${r.outcome}`),
      ).to.deep.equal(['PATCH main 200']);
      expect(written.status).to.deep.equal({ ready: true });
    });

    it('applies a plain partial custom object and its status, each owned by the client', async () => {
      const { widgets } = kinds();
      const name = `a-${suffix()}`;
      const applied = await firstValueFrom(widgets.apply({ metadata: { name }, spec: { size: 3 } }));
      expect(applied.spec).to.deep.equal({ size: 3 });
      const status = await firstValueFrom(widgets.applyStatus({ metadata: { name }, status: { ready: true } }));
      expect(status.status).to.deep.equal({ ready: true });
      expect(entryOf(status, 'widget-controller', 'Apply').fieldsV1).to.deep.equal({ 'f:spec': { 'f:size': {} } });
      expect(entryOf(status, 'widget-controller', 'Apply', 'status').fieldsV1).to.deep.equal({
        'f:status': { 'f:ready': {} },
      });
    });

    it('reports a kind of an unserved group as an unknown kind, and a read after its CRD is gone as a NotFound ApiError', async function () {
      this.timeout(60_000);
      const { connection, namespace } = session();
      const unserved = resourceClient(
        connection,
        { apiVersion: `nothing-${suffix()}.example.com/v1`, kind: 'Thing' },
        { namespace },
      );
      const unknown: unknown = await firstValueFrom(unserved.list()).catch((error: unknown) => error);
      expect(unknown).to.be.instanceOf(UnknownResourceError);
      expect((unknown as Error).message).to.match(
        /^unknown resource kind "Thing" in apiVersion "nothing-[0-9a-f]+\.example\.com\/v1"$/,
      );

      // Resolved (and cached) while its CRD existed: the read reaches the server, which answers text/plain 404.
      const gone = `gone-${suffix()}.example.com`;
      await firstValueFrom(definitions().create(crd(gone, 'sprockets', 'Sprocket', false)));
      const sprockets = resourceClient<Widget>(
        connection,
        { apiVersion: `${gone}/v1`, kind: 'Sprocket' },
        { namespace },
      );
      await waitForAsync(
        () =>
          firstValueFrom(sprockets.list()).then(
            () => true,
            () => false,
          ),
        'the CRD to be served',
        30_000,
      );
      await firstValueFrom(definitions().delete(`sprockets.${gone}`));
      let error: unknown;
      await waitForAsync(
        async () => {
          error = await firstValueFrom(sprockets.get('s1')).then(
            () => undefined,
            (e: unknown) => e,
          );
          return error instanceof ApiError && (error.status as unknown) === undefined;
        },
        'the CRD to be gone',
        30_000,
      );
      expect(isNotFound(error)).to.equal(true);
      expect((error as ApiError).code).to.equal(404);
      expect((error as ApiError).message).to.equal('404 page not found');
    });
  });
}
