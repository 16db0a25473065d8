/**
 * Contract: the client's plain calls on both servers: what each emits, and the typed errors of its preconditions.
 */
import { expect } from 'chai';
import { defer, firstValueFrom, switchMap } from 'rxjs';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import type { ResourceClient } from '../../src/client/index.js';
import { isAlreadyExists, isConflict, isNotFound, programName, transportOf } from '../../src/transport/index.js';
import type { Transport } from '../../src/transport/index.js';
import { recordingTransport } from '../client/support/recording-transport.js';
import { contractTargets, expectItemsAsRead, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): client calls`, () => {
    const session = useContractSession(target, 'contract-client-crud');
    const configMaps = () =>
      resourceClient<V1ConfigMap>(
        session().connection,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace, fieldManager: 'crud' },
      );
    const errorOf = (promise: Promise<unknown>): Promise<unknown> =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );

    it('creates, reads, replaces and deletes, each answer carrying the resourceVersion it produced', async () => {
      const client = configMaps();
      const name = `crud-${suffix()}`;
      const made = await firstValueFrom(client.create({ metadata: { name }, data: { a: '1' } }));
      expect(isAlreadyExists(await errorOf(firstValueFrom(client.create({ metadata: { name } }))))).to.equal(true);
      const read = await firstValueFrom(client.get(name));
      expect(read.metadata?.resourceVersion).to.equal(made.metadata?.resourceVersion);
      const replaced = await firstValueFrom(client.replace({ ...read, data: { a: '2' } }));
      expect(Number(replaced.metadata?.resourceVersion)).to.be.above(Number(made.metadata?.resourceVersion));
      expect(isConflict(await errorOf(firstValueFrom(client.replace({ ...read, data: { a: '3' } }))))).to.equal(true);
      const deleted = (await firstValueFrom(client.delete(name))) as ResourceClient.StatusObject;
      expect(deleted).to.deep.include({ kind: 'Status', status: 'Success' });
      expect(isNotFound(await errorOf(firstValueFrom(client.get(name))))).to.equal(true);
    });

    it('refuses a delete whose preconditions no longer hold with 409, and honours matching ones', async () => {
      const client = configMaps();
      const made = await firstValueFrom(client.create({ metadata: { name: `pre-${suffix()}` } }));
      const { uid, resourceVersion } = made.metadata!;
      await firstValueFrom(client.patch(made, { type: 'merge', body: { data: { moved: 'yes' } } }));
      const stale = await errorOf(firstValueFrom(client.delete(made, { preconditions: { uid, resourceVersion } })));
      expect(isConflict(stale)).to.equal(true);
      const current = await firstValueFrom(client.get(made));
      await firstValueFrom(
        client.delete(made, { preconditions: { uid, resourceVersion: current.metadata!.resourceVersion! } }),
      );
      expect(isNotFound(await errorOf(firstValueFrom(client.get(made))))).to.equal(true);
    });

    it('lists page by page and deletes a labelled collection', async () => {
      const client = configMaps();
      const batch = `batch-${suffix()}`;
      for (let i = 0; i < 3; i++)
        await firstValueFrom(client.create({ metadata: { name: `${batch}-${i}`, labels: { batch } } }));
      const first = await firstValueFrom(client.list({ labelSelector: `batch=${batch}`, limit: 2 }));
      expect(first.items).to.have.length(2);
      const rest = await firstValueFrom(
        client.list({ labelSelector: `batch=${batch}`, limit: 2, continue: first.metadata.continue }),
      );
      expect([...first.items, ...rest.items].map((c) => c.metadata?.name)).to.deep.equal(
        [0, 1, 2].map((i) => `${batch}-${i}`),
      );
      // The client hands items out as the server sends them: a built-in kind's without kind and apiVersion.
      await expectItemsAsRead(
        session(),
        { apiVersion: first.apiVersion, items: [...first.items, ...rest.items] },
        { plural: 'configmaps' },
      );
      const deleted = await firstValueFrom(client.deleteCollection({ labelSelector: `batch=${batch}` }));
      expect(
        (deleted as { items?: unknown[] }).items?.map((c: any) => [c.kind, c.apiVersion, c.metadata.name]),
      ).to.deep.equal([0, 1, 2].map((i) => [undefined, undefined, `${batch}-${i}`]));
      expect((await firstValueFrom(client.list({ labelSelector: `batch=${batch}` }))).items).to.deep.equal([]);
    });

    it("records a write without a fieldManager under the User-Agent's program, and one with it under its name", async () => {
      const unnamed = resourceClient<V1ConfigMap>(
        session().connection,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace },
      );
      const made = await firstValueFrom(unnamed.create({ metadata: { name: `agent-${suffix()}` }, data: { a: '1' } }));
      const patched = await firstValueFrom(configMaps().patch(made, { type: 'merge', body: { data: { b: '2' } } }));
      // kube-apiserver takes the User-Agent up to its first '/' (prefixFromUserAgent); rxkube's starts with the program.
      expect(patched.metadata!.managedFields!.map((entry) => `${entry.manager} ${entry.operation}`)).to.have.members([
        `${programName()} Update`,
        'crud Update',
      ]);
    });

    it('lists every page in one call without a limit, following continue tokens', async () => {
      const recorded = recordingTransport(session().connection);
      const client = resourceClient<V1ConfigMap>(
        recorded.transport,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace },
      );
      const batch = `pages-${suffix()}`;
      for (let i = 0; i < 5; i++)
        await firstValueFrom(configMaps().create({ metadata: { name: `${batch}-${i}`, labels: { batch } } }));
      const all = await firstValueFrom(client.list({ labelSelector: `batch=${batch}`, pageSize: 2 }));
      expect(all.items.map((c) => c.metadata?.name)).to.deep.equal([0, 1, 2, 3, 4].map((i) => `${batch}-${i}`));
      expect(all.metadata.continue).to.equal(undefined);
      expect(all.metadata.resourceVersion).to.be.a('string').and.not.empty;
      expect(recorded.requests.map((r) => `${r.method} ${r.outcome}`)).to.deep.equal(['GET 200', 'GET 200', 'GET 200']);
    });

    if (target.canExpireHistory) {
      it('restarts a paged list once without a limit when its continue token expires on the way', async function () {
        this.timeout(120_000);
        const batch = `expiry-${suffix()}`;
        for (let i = 0; i < 3; i++)
          await firstValueFrom(configMaps().create({ metadata: { name: `${batch}-${i}`, labels: { batch } } }));
        // Between the first page and the second, another write lands and history is compacted past the token.
        const inner = transportOf(session().connection);
        const compacting: Transport = {
          ...inner,
          request: (request) =>
            request.query?.continue === undefined
              ? inner.request(request)
              : defer(async () => {
                  await firstValueFrom(configMaps().create({ metadata: { name: `${batch}-late`, labels: { batch } } }));
                  await session().expireHistory();
                }).pipe(switchMap(() => inner.request(request))),
        };
        const recorded = recordingTransport(compacting);
        const client = resourceClient<V1ConfigMap>(
          recorded.transport,
          { apiVersion: 'v1', kind: 'ConfigMap' },
          { namespace: session().namespace },
        );
        const all = await firstValueFrom(client.list({ labelSelector: `batch=${batch}`, pageSize: 2 }));
        expect(all.items.map((c) => c.metadata?.name)).to.deep.equal([0, 1, 2, 'late'].map((i) => `${batch}-${i}`));
        expect(recorded.requests.map((r) => `${r.method} ${r.outcome}`)).to.deep.equal([
          'GET 200',
          'GET error 410',
          'GET 200',
        ]);
      });
    }

    it('answers a dry-run delete with the object and deletes nothing', async () => {
      const client = configMaps();
      const made = await firstValueFrom(client.create({ metadata: { name: `drydel-${suffix()}` } }));
      await firstValueFrom(client.delete(made, { dryRun: true }));
      expect((await firstValueFrom(client.get(made))).metadata?.uid).to.equal(made.metadata?.uid);
    });
  });
}
