/**
 * Contract: finalizers and owner references written by the client, on both servers. Garbage collection runs only
 * in memory (`ownerGC`): the real target has no kube-controller-manager, so there the references themselves and the
 * server's answers (422, 409) are what is checked.
 */
import { expect } from 'chai';
import { firstValueFrom, Subject, takeUntil } from 'rxjs';
import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  controllerReference,
  finalizer,
  isControlledBy,
  resourceClient,
  setControllerReference,
} from '../../src/client/index.js';
import { informer } from '../../src/informer/index.js';
import { reconcile } from '../../src/controller/index.js';
import { toKeys } from '../../src/controller/triggers/index.js';
import { type ApiError, isInvalid, isNotFound } from '../../src/transport/index.js';
import { waitForAsync } from '../support/wait.js';
import { recordingTransport } from '../client/support/recording-transport.js';
import { contractTargets, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const FINALIZER = 'rxkube.io/contract-cleanup';

  describe(`contract (${target.name}): client finalizers and owner references`, () => {
    const session = useContractSession(target, 'contract-client-life', { ownerGC: true });
    const configMaps = (connection = session().connection as Parameters<typeof resourceClient>[0]) =>
      resourceClient<V1ConfigMap>(
        connection,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace, fieldManager: 'rxkube-contract' },
      );
    const gone = async (name: string): Promise<boolean> => {
      const error = await firstValueFrom(configMaps().get(name)).then(
        () => undefined,
        (e: unknown) => e,
      );
      return isNotFound(error);
    };

    it('adds the finalizer before apply, then on delete cleans up, removes it and the object is gone', async () => {
      const recorded = recordingTransport(session().connection);
      const client = configMaps(recorded.transport);
      const steps: string[] = [];
      const handle = finalizer(client, FINALIZER, {
        apply: (object) => steps.push(`apply ${object.metadata?.finalizers?.join(',')}`),
        cleanup: (object) => steps.push(`cleanup ${object.metadata?.deletionTimestamp ? 'deleting' : 'alive'}`),
      });
      const name = `fin-${suffix()}`;
      const made = await firstValueFrom(client.create({ metadata: { name, finalizers: ['other.io/keep'] } }));

      await firstValueFrom(handle({ object: made }));
      const held = await firstValueFrom(client.get(name));
      expect(held.metadata?.finalizers).to.deep.equal(['other.io/keep', FINALIZER]);
      await firstValueFrom(handle({ object: held }));
      expect(recorded.requests.filter((r) => r.method === 'PATCH')).to.have.length(1);

      const deleted = await firstValueFrom(client.delete(name));
      expect((deleted as V1ConfigMap).metadata?.deletionTimestamp).to.be.a('string');
      await firstValueFrom(handle({ object: await firstValueFrom(client.get(name)) }));
      expect(steps).to.deep.equal([
        `apply other.io/keep,${FINALIZER}`,
        `apply other.io/keep,${FINALIZER}`,
        'cleanup deleting',
      ]);
      const remaining = await firstValueFrom(client.get(name));
      expect(remaining.metadata?.finalizers).to.deep.equal(['other.io/keep']);

      await firstValueFrom(
        client.patch(name, { type: 'json', body: [{ op: 'remove', path: '/metadata/finalizers' }] }),
      );
      expect(await gone(name)).to.equal(true);
      expect(await firstValueFrom(handle({ object: undefined }))).to.equal(undefined);
    });

    it('runs neither step for an object being deleted without its finalizer', async () => {
      const client = configMaps();
      const steps: string[] = [];
      const handle = finalizer(client, FINALIZER, {
        apply: () => steps.push('apply'),
        cleanup: () => steps.push('cleanup'),
      });
      const name = `foreign-${suffix()}`;
      await firstValueFrom(client.create({ metadata: { name, finalizers: ['other.io/keep'] } }));
      await firstValueFrom(client.delete(name));
      await firstValueFrom(handle({ object: await firstValueFrom(client.get(name)) }));
      expect(steps).to.deep.equal([]);
      await firstValueFrom(
        client.mutate(name, (draft) => {
          draft.metadata!.finalizers = [];
        }),
      );
      expect(await gone(name)).to.equal(true);
    });

    it('plugs into the reconcile operator: created, finalized, deleted, cleaned up and gone', async function () {
      this.timeout(60_000);
      const client = configMaps();
      const cache = informer<V1ConfigMap>(
        session().connection,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace, labelSelector: 'rxkube.io/test=lifecycle' },
      );
      const steps: string[] = [];
      const stop = new Subject<void>();
      const events: string[] = [];
      const subscription = cache.events$
        .pipe(
          toKeys(),
          reconcile(
            finalizer(client, FINALIZER, {
              apply: (object) => {
                steps.push(`apply ${object.metadata?.name}`);
                return { requeueAfter: 60_000 };
              },
              cleanup: (object) => {
                steps.push(`cleanup ${object.metadata?.name}`);
              },
              store: cache,
            }),
            { lookup: cache, gate: cache.synced$ },
          ),
          takeUntil(stop),
        )
        .subscribe((event) => events.push(`${event.type}${event.type === 'failed' ? ` ${String(event.error)}` : ''}`));
      try {
        const name = `op-${suffix()}`;
        await firstValueFrom(client.create({ metadata: { name, labels: { 'rxkube.io/test': 'lifecycle' } } }));
        await waitForAsync(
          async () => (await firstValueFrom(client.get(name))).metadata?.finalizers?.includes(FINALIZER) === true,
          'the finalizer to be added',
          20_000,
        );
        await waitForAsync(
          async () => steps.includes(`apply ${name}`),
          () => `apply to run: ${steps.join('; ')}`,
          20_000,
        );
        await firstValueFrom(client.delete(name));
        await waitForAsync(
          () => gone(name),
          () => `the object to go: ${steps.join('; ')} / ${events.join('; ')}`,
          20_000,
        );
        expect(steps.filter((step) => step.startsWith('cleanup'))).to.deep.equal([`cleanup ${name}`]);
        expect(steps.indexOf(`apply ${name}`)).to.be.below(steps.indexOf(`cleanup ${name}`));
        expect(events.filter((event) => event.startsWith('failed'))).to.deep.equal([]);
      } finally {
        stop.next();
        subscription.unsubscribe();
      }
    });

    it('sets a controller reference with mutate and sees the owner control the object', async () => {
      const client = configMaps();
      const owner = await firstValueFrom(client.create({ metadata: { name: `owner-${suffix()}` } }));
      const dependent = await firstValueFrom(client.create({ metadata: { name: `dep-${suffix()}` } }));
      const owned = await firstValueFrom(
        client.mutate(dependent, (draft) => {
          setControllerReference(draft, { ...owner, apiVersion: 'v1', kind: 'ConfigMap' });
        }),
      );
      expect(owned.metadata?.ownerReferences).to.deep.equal([
        controllerReference({ ...owner, apiVersion: 'v1', kind: 'ConfigMap' }),
      ]);
      expect(isControlledBy(owned, owner)).to.equal(true);
    });

    it('answers a second controller reference, written around setControllerReference, with 422', async () => {
      const client = configMaps();
      const a = await firstValueFrom(client.create({ metadata: { name: `a-${suffix()}` } }));
      const b = await firstValueFrom(client.create({ metadata: { name: `b-${suffix()}` } }));
      const both = [a, b].map((owner) => controllerReference({ ...owner, apiVersion: 'v1', kind: 'ConfigMap' }));
      const error = await firstValueFrom(
        client.create({ metadata: { name: `two-${suffix()}`, ownerReferences: both } }),
      ).catch((e: unknown) => e as ApiError);
      expect(isInvalid(error)).to.equal(true);
      expect((error as ApiError).causes.map((c) => [c.field, c.reason])).to.deep.equal([
        ['metadata.ownerReferences', 'FieldValueInvalid'],
      ]);
      expect((error as ApiError).causes[0]!.message).to.contain('Only one reference can have Controller set to true');
      expect((error as ApiError).causes[0]!.message).to.match(
        /Found "true" in references for ConfigMap\/a-\S+ and ConfigMap\/b-\S+$/,
      );
    });

    it('retries a controller reference written from a stale copy after the conflict, keeping the newer write', async () => {
      const client = configMaps();
      const owner = await firstValueFrom(client.create({ metadata: { name: `owner-${suffix()}` } }));
      const stale = await firstValueFrom(client.create({ metadata: { name: `dep-${suffix()}` }, data: { a: '1' } }));
      await firstValueFrom(client.patch(stale, { type: 'merge', body: { data: { b: '2' } } }));
      const owned = await firstValueFrom(
        client.mutate(stale, (draft) => {
          setControllerReference(draft, { ...owner, apiVersion: 'v1', kind: 'ConfigMap' });
        }),
      );
      expect(owned.data).to.deep.equal({ a: '1', b: '2' });
      expect(isControlledBy(owned, owner)).to.equal(true);
    });

    if (target.inMemoryCore) {
      it('garbage-collects the dependents of a deleted owner (ownerGC)', async () => {
        const client = configMaps();
        const owner = await firstValueFrom(client.create({ metadata: { name: `owner-${suffix()}` } }));
        const dependent = await firstValueFrom(
          client.create(
            setControllerReference(
              { metadata: { name: `dep-${suffix()}`, namespace: session().namespace } },
              { ...owner, apiVersion: 'v1', kind: 'ConfigMap' },
            ),
          ),
        );
        await firstValueFrom(client.delete(owner));
        await waitForAsync(() => gone(dependent.metadata!.name!), 'the dependent to be collected', 10_000);
      });
    }
  });
}
