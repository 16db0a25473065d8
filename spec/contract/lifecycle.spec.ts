/** Contract: graceful pod deletion, delete preconditions, dry runs and namespace termination. */
import { expect } from 'chai';
import { contractTargets, corePath, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): lifecycle`, () => {
    const session = useContractSession(target, 'contract-life');
    const pods = (): string => corePath(session(), 'pods');
    const configMaps = (): string => corePath(session(), 'configmaps');

    it('keeps a scheduled pod after DELETE with a 30 s grace period, and removes it on a zero-grace DELETE', async () => {
      const { raw } = session();
      const name = `pod-${suffix()}`;
      const made = await raw('POST', pods(), {
        body: {
          metadata: { name },
          spec: { nodeName: 'node-a', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        },
      });
      expect(made.status, made.text).to.equal(201);

      // No kubelet runs to confirm the shutdown, so the pod stays, marked.
      const graceful = await raw('DELETE', `${pods()}/${name}`);
      expect(graceful.status).to.equal(200);
      expect(graceful.json.metadata.deletionGracePeriodSeconds).to.equal(30);
      expect(
        Date.parse(graceful.json.metadata.deletionTimestamp) - Date.parse(made.json.metadata.creationTimestamp),
      ).to.be.at.least(29_000);
      const held = await raw('GET', `${pods()}/${name}`);
      expect(held.json.metadata.deletionTimestamp).to.equal(graceful.json.metadata.deletionTimestamp);

      const now = await raw('DELETE', `${pods()}/${name}`, { body: { gracePeriodSeconds: 0 } });
      expect(now.status).to.equal(200);
      expect(now.json.kind).to.equal('Pod');
      // The answer is the pod as it was removed: grace 0, deletionTimestamp moved to now.
      expect(now.json.metadata.deletionGracePeriodSeconds).to.equal(0);
      expect(Date.parse(now.json.metadata.deletionTimestamp)).to.be.below(
        Date.parse(graceful.json.metadata.deletionTimestamp),
      );
      expect((await raw('GET', `${pods()}/${name}`)).status).to.equal(404);
    });

    it('answers DELETE preconditions that do not match with 409 Conflict naming both values', async () => {
      const { raw } = session();
      const name = `cm-${suffix()}`;
      const made = (await raw('POST', configMaps(), { body: { metadata: { name } } })).json;
      const { uid, resourceVersion } = made.metadata;

      const wrongUid = await raw('DELETE', `${configMaps()}/${name}`, { body: { preconditions: { uid: 'nope' } } });
      expect(wrongUid.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 409,
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on ConfigMap "${name}": the UID in the precondition (nope) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
        details: { name, kind: 'ConfigMap' },
      });
      const wrongRv = await raw('DELETE', `${configMaps()}/${name}`, {
        body: { preconditions: { resourceVersion: '1' } },
      });
      expect(wrongRv.json).to.deep.include({
        code: 409,
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on ConfigMap "${name}": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
      });

      const matching = await raw('DELETE', `${configMaps()}/${name}`, {
        body: { preconditions: { uid, resourceVersion } },
      });
      expect(matching.status).to.equal(200);
    });

    it('answers a dryRun=All create with the object and stores nothing', async () => {
      const { raw } = session();
      const name = `dry-${suffix()}`;
      const dry = await raw('POST', `${configMaps()}?dryRun=All`, { body: { metadata: { name }, data: { a: '1' } } });
      expect(dry.status).to.equal(201);
      expect(dry.json.metadata.name).to.equal(name);
      expect(dry.json.data).to.deep.equal({ a: '1' });
      expect((await raw('GET', `${configMaps()}/${name}`)).status).to.equal(404);
    });

    it('deletes nothing when the dry run is in the DeleteOptions body, as client-go sends it', async () => {
      const { raw } = session();
      const name = `dry-${suffix()}`;
      expect((await raw('POST', configMaps(), { body: { metadata: { name }, data: { a: '1' } } })).status).to.equal(
        201,
      );
      const dry = await raw('DELETE', `${configMaps()}/${name}`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] },
      });
      expect(dry.status, dry.text).to.equal(200);
      expect(dry.json).to.include({ kind: 'Status', status: 'Success' });
      expect((await raw('GET', `${configMaps()}/${name}`)).status).to.equal(200);
      const invalid = await raw('DELETE', `${configMaps()}/${name}`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['Some'] },
      });
      expect(invalid.status, invalid.text).to.equal(422);
      expect(invalid.json.message).to.equal(
        'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
      );
      expect(invalid.json.details).to.deep.equal({
        group: 'meta.k8s.io',
        kind: 'DeleteOptions',
        causes: [
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: ["Some"]: supported values: "All"',
            field: 'dryRun',
          },
        ],
      });
      expect((await raw('GET', `${configMaps()}/${name}`)).status).to.equal(200);
    });

    it('marks a deleted namespace Terminating and refuses new content in it with 403', async () => {
      const { raw } = session();
      const ns = `contract-term-${suffix()}`;
      expect((await raw('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).to.equal(201);

      // No namespace controller runs on either server, so the namespace stays Terminating.
      const deleting = await raw('DELETE', `/api/v1/namespaces/${ns}`);
      expect(deleting.status).to.equal(200);
      expect(deleting.json.status.phase).to.equal('Terminating');
      expect(deleting.json.metadata.deletionTimestamp).to.be.a('string');
      expect(deleting.json.metadata).to.not.have.property('deletionGracePeriodSeconds');
      expect(deleting.json.spec).to.deep.equal({ finalizers: ['kubernetes'] });

      const late = await raw('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'late' } } });
      expect(late.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        details: {
          name: 'late',
          kind: 'configmaps',
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ns} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      });
    });

    it('refuses to delete the default namespace with 403', async () => {
      const answer = await session().raw('DELETE', '/api/v1/namespaces/default');
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'namespaces "default" is forbidden: this namespace may not be deleted',
        details: { name: 'default', kind: 'namespaces' },
      });
    });
  });
}
