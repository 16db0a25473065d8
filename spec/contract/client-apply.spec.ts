/**
 * Contract: the client's server-side apply on both servers: creation, conflicts reported field by field, force,
 * status ownership kept apart, and the field manager rules.
 */
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import { applyConflicts } from '../../src/transport/index.js';
import { type ApiError, isConflict, isInvalid } from '../../src/transport/index.js';
import { recordingTransport } from '../client/support/recording-transport.js';
import { contractTargets, entryOf, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): client server-side apply`, () => {
    const session = useContractSession(target, 'contract-client-apply');
    const configMaps = (fieldManager?: string) =>
      resourceClient<V1ConfigMap>(
        session().connection,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace, fieldManager },
      );
    const failureOf = (promise: Promise<unknown>): Promise<ApiError> =>
      promise.then(
        () => {
          throw new Error('expected the apply to fail');
        },
        (error: unknown) => error as ApiError,
      );

    it('creates the object from the partial body and records the client as its Apply manager', async () => {
      const recorded = recordingTransport(session().connection);
      const client = resourceClient<V1ConfigMap>(
        recorded.transport,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace, fieldManager: 'controller-a' },
      );
      const name = `create-${suffix()}`;
      const applied = await firstValueFrom(client.apply({ metadata: { name }, data: { color: 'blue' } }));
      expect(applied.data).to.deep.equal({ color: 'blue' });
      expect(applied.metadata?.resourceVersion).to.be.a('string');
      expect(entryOf(applied, 'controller-a').fieldsV1).to.deep.equal({ 'f:data': { 'f:color': {} } });
      expect(recorded.requests.map((r) => [r.method, r.contentType, r.outcome])).to.deep.equal([
        ['PATCH', 'application/apply-patch+yaml', '201'],
      ]);
      expect(recorded.requests[0]!.body).to.deep.equal({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { color: 'blue' },
      });
    });

    it('refuses an apply that would change a field another applier owns, naming the field and the manager', async () => {
      const name = `conflict-${suffix()}`;
      await firstValueFrom(
        configMaps('controller-a').apply({ metadata: { name }, data: { color: 'blue', size: 'L' } }),
      );
      const error = await failureOf(
        firstValueFrom(configMaps('controller-b').apply({ metadata: { name }, data: { color: 'red', size: 'L' } })),
      );
      expect(isConflict(error)).to.equal(true);
      expect(error.message).to.equal('Apply failed with 1 conflict: conflict with "controller-a": .data.color');
      expect(error.causes).to.deep.equal([
        { reason: 'FieldManagerConflict', message: 'conflict with "controller-a"', field: '.data.color' },
      ]);
      expect(applyConflicts(error)).to.deep.equal([
        { field: '.data.color', manager: 'controller-a', operation: 'Apply' },
      ]);
    });

    it('names an Update owner with its apiVersion in the conflict', async () => {
      const name = `updater-${suffix()}`;
      await firstValueFrom(configMaps('kubectl-edit').create({ metadata: { name }, data: { color: 'blue' } }));
      const error = await failureOf(
        firstValueFrom(configMaps('controller-b').apply({ metadata: { name }, data: { color: 'red' } })),
      );
      expect(error.causes).to.deep.equal([
        { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.color' },
      ]);
      expect(applyConflicts(error)).to.deep.equal([
        { field: '.data.color', manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1' },
      ]);
    });

    it('takes the conflicting fields over with force, leaving the other manager the rest', async () => {
      const name = `force-${suffix()}`;
      await firstValueFrom(
        configMaps('controller-a').apply({ metadata: { name }, data: { color: 'blue', size: 'L' } }),
      );
      const forced = await firstValueFrom(
        configMaps('controller-b').apply({ metadata: { name }, data: { color: 'red' } }, { force: true }),
      );
      expect(forced.data).to.deep.equal({ color: 'red', size: 'L' });
      expect(entryOf(forced, 'controller-a').fieldsV1).to.deep.equal({ 'f:data': { 'f:size': {} } });
      expect(entryOf(forced, 'controller-b').fieldsV1).to.deep.equal({ 'f:data': { 'f:color': {} } });
    });

    it('removes a field its manager stops applying, and re-applying the same body writes nothing', async () => {
      const name = `shrink-${suffix()}`;
      const client = configMaps('controller-a');
      await firstValueFrom(client.apply({ metadata: { name }, data: { a: '1', b: '2' } }));
      const shrunk = await firstValueFrom(client.apply({ metadata: { name }, data: { a: '1' } }));
      expect(shrunk.data).to.deep.equal({ a: '1' });
      const again = await firstValueFrom(client.apply({ metadata: { name }, data: { a: '1' } }));
      expect(again.metadata?.resourceVersion).to.equal(shrunk.metadata?.resourceVersion);
    });

    it('answers an apply without any field manager with 422 naming the parameter', async () => {
      const error = await failureOf(
        firstValueFrom(configMaps().apply({ metadata: { name: `nomanager-${suffix()}` } })),
      );
      expect(isInvalid(error)).to.equal(true);
      expect(error.causes.map((c) => c.field)).to.deep.equal(['fieldManager']);
    });

    it('applies status through the status subresource, tracked apart from the main resource', async () => {
      const deployments = resourceClient<V1Deployment>(
        session().connection,
        { apiVersion: 'apps/v1', kind: 'Deployment' },
        { namespace: session().namespace, fieldManager: 'rollout-controller' },
      );
      const name = `status-${suffix()}`;
      const made = await firstValueFrom(
        deployments.apply({
          metadata: { name },
          spec: {
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
            },
          },
        }),
      );
      const status = await firstValueFrom(
        deployments.applyStatus({ metadata: { name }, status: { observedGeneration: 1, replicas: 1 } }),
      );
      expect(status.status).to.deep.include({ observedGeneration: 1, replicas: 1 });
      expect(status.metadata?.generation).to.equal(made.metadata?.generation);
      expect(entryOf(status, 'rollout-controller', 'Apply', 'status').fieldsV1).to.deep.equal({
        'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} },
      });
      expect(entryOf(status, 'rollout-controller', 'Apply').fieldsV1).to.have.property('f:spec');
    });

    it('validates strictly when asked: an unknown field is a 400 instead of being dropped', async () => {
      const client = configMaps('controller-a');
      const body = { metadata: { name: `strict-${suffix()}` }, data: { a: '1' }, colour: 'blue' } as V1ConfigMap;
      const error = await failureOf(firstValueFrom(client.create(body, { fieldValidation: 'Strict' })));
      expect([error.code, error.reason]).to.deep.equal([400, 'BadRequest']);
      expect(error.message).to.equal(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "colour"',
      );
      const lenient = await firstValueFrom(client.create(body, { fieldValidation: 'Ignore' }));
      expect(lenient).to.not.have.property('colour');
      expect(lenient.data).to.deep.equal({ a: '1' });
    });

    it('stores nothing on a dry run, yet answers with the object as it would be written', async () => {
      const client = configMaps('controller-a');
      const name = `dry-${suffix()}`;
      const dry = await firstValueFrom(client.apply({ metadata: { name }, data: { a: '1' } }, { dryRun: true }));
      expect(dry.data).to.deep.equal({ a: '1' });
      const error = await failureOf(firstValueFrom(client.get(name)));
      expect(error.code).to.equal(404);
    });
  });
}
