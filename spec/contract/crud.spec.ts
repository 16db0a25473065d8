/** Contract: CRUD on ConfigMaps and Pods, and the exact Status bodies of the common errors. */
import { ApiException } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { contractTargets, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const podBody = (name: string): object => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
  });

  describe(`contract (${target.name}): CRUD and errors`, () => {
    const session = useContractSession(target, 'contract-crud');

    it('creates, reads, updates and deletes a ConfigMap with increasing resourceVersions', async () => {
      const { core, namespace } = session();
      const name = `cm-${suffix()}`;
      const made = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { a: '1' } } });
      expect(made.metadata?.uid).to.be.a('string').and.not.empty;
      const read = await core.readNamespacedConfigMap({ name, namespace });
      expect(read.data).to.deep.equal({ a: '1' });
      expect(read.metadata?.resourceVersion).to.equal(made.metadata?.resourceVersion);

      const updated = await core.replaceNamespacedConfigMap({ name, namespace, body: { ...read, data: { a: '2' } } });
      expect(BigInt(updated.metadata!.resourceVersion!) > BigInt(made.metadata!.resourceVersion!)).to.equal(true);
      expect(updated.metadata?.uid).to.equal(made.metadata?.uid);

      const deleted = await session().raw('DELETE', `/api/v1/namespaces/${namespace}/configmaps/${name}`);
      expect(deleted.status).to.equal(200);
      expect(deleted.json).to.deep.include({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
      expect(deleted.json.details).to.deep.equal({ name, kind: 'configmaps', uid: made.metadata?.uid });
      expect((await session().raw('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`)).status).to.equal(404);
    });

    it('creates, reads, updates and deletes an unscheduled Pod, answering the delete with the pod', async () => {
      const { raw, namespace } = session();
      const name = `pod-${suffix()}`;
      const base = `/api/v1/namespaces/${namespace}/pods`;
      const made = await raw('POST', base, { body: podBody(name) });
      expect(made.status).to.equal(201);
      expect(made.json.status.phase).to.equal('Pending');

      const labelled = await raw('PUT', `${base}/${name}`, {
        body: { ...made.json, metadata: { ...made.json.metadata, labels: { tier: 'web' } } },
      });
      expect(labelled.status).to.equal(200);
      expect(labelled.json.metadata.labels).to.deep.equal({ tier: 'web' });

      // No kubelet confirms, but an unscheduled pod is removed at once and the answer is the pod itself.
      const deleted = await raw('DELETE', `${base}/${name}`);
      expect(deleted.status).to.equal(200);
      expect(deleted.json.kind).to.equal('Pod');
      expect(deleted.json.metadata.name).to.equal(name);
      expect((await raw('GET', `${base}/${name}`)).status).to.equal(404);
    });

    it('answers an update with a stale resourceVersion with 409 Conflict', async () => {
      const { core, raw, namespace } = session();
      const name = `cm-${suffix()}`;
      const made = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { a: '1' } } });
      await core.replaceNamespacedConfigMap({ name, namespace, body: { ...made, data: { a: '2' } } });
      const stale = await raw('PUT', `/api/v1/namespaces/${namespace}/configmaps/${name}`, {
        body: { ...made, data: { a: '3' } },
      });
      expect(stale.status).to.equal(409);
      expect(stale.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 409,
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details: { name, kind: 'configmaps' },
      });
    });

    it('answers a duplicate create with 409 AlreadyExists', async () => {
      const { core, raw, namespace } = session();
      const name = `cm-${suffix()}`;
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
      const again = await raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, { body: { metadata: { name } } });
      expect(again.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 409,
        reason: 'AlreadyExists',
        message: `configmaps "${name}" already exists`,
        details: { name, kind: 'configmaps' },
      });
    });

    it('answers a read of a missing object with 404 NotFound naming the resource', async () => {
      const { raw, namespace } = session();
      const missing = await raw('GET', `/api/v1/namespaces/${namespace}/configmaps/x`);
      expect(missing.status).to.equal(404);
      expect(missing.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        message: 'configmaps "x" not found',
        details: { name: 'x', kind: 'configmaps' },
      });
      const deleteMissing = await raw('DELETE', `/api/v1/namespaces/${namespace}/pods/x`);
      expect(deleteMissing.json).to.deep.include({ code: 404, reason: 'NotFound', message: 'pods "x" not found' });
    });

    it('surfaces 404 through client-node as an ApiException carrying the Status body', async () => {
      const { core, namespace } = session();
      const error = await core.readNamespacedConfigMap({ name: 'x', namespace }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ApiException);
      const api = error as ApiException<unknown>;
      expect(api.code).to.equal(404);
      const body = typeof api.body === 'string' ? JSON.parse(api.body) : api.body;
      expect(body).to.deep.include({ reason: 'NotFound', message: 'configmaps "x" not found' });
    });

    it('answers an invalid name with 422 Invalid and one FieldValueInvalid cause on metadata.name', async () => {
      const { raw, namespace } = session();
      const bad = await raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        body: { metadata: { name: 'Bad_Name' } },
      });
      expect(bad.status).to.equal(422);
      const rule =
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      expect(bad.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${rule}`,
        details: {
          name: 'Bad_Name',
          kind: 'ConfigMap',
          causes: [
            { reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${rule}`, field: 'metadata.name' },
          ],
        },
      });
    });

    it('answers a create in a missing namespace with 404 naming the namespace', async () => {
      const { raw } = session();
      const ns = `missing-${suffix()}`;
      const answer = await raw('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'a' } } });
      expect(answer.status).to.equal(404);
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        message: `namespaces "${ns}" not found`,
        details: { name: ns, kind: 'namespaces' },
      });
    });

    it('answers an update of a missing object with 404 and does not create it', async () => {
      const { raw, namespace } = session();
      const name = `cm-${suffix()}`;
      const body: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace },
        data: { a: '1' },
      };
      const answer = await raw('PUT', `/api/v1/namespaces/${namespace}/configmaps/${name}`, {
        body: { ...body, metadata: { ...body.metadata, resourceVersion: '1' } },
      });
      expect(answer.json).to.deep.include({ code: 404, reason: 'NotFound', message: `configmaps "${name}" not found` });
      expect((await raw('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`)).status).to.equal(404);
    });

    it('merges Secret stringData into base64 data on write', async () => {
      const { raw, namespace } = session();
      const made = await raw('POST', `/api/v1/namespaces/${namespace}/secrets`, {
        body: { metadata: { name: `s-${suffix()}` }, stringData: { user: 'admin' }, data: { kept: 'eA==' } },
      });
      expect(made.status, made.text).to.equal(201);
      expect(made.json.data).to.deep.equal({ user: Buffer.from('admin').toString('base64'), kept: 'eA==' });
      expect(made.json).to.not.have.property('stringData');
      expect(made.json.type).to.equal('Opaque');
    });

    it('creates and renews a Lease, refusing a renewal from a stale resourceVersion with 409', async () => {
      const { raw, namespace } = session();
      const name = `lease-${suffix()}`;
      const base = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
      const made = await raw('POST', base, {
        body: { metadata: { name }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 } },
      });
      expect(made.status, made.text).to.equal(201);
      const renewTime = new Date().toISOString().replace('Z', '000Z');
      const renewed = await raw('PUT', `${base}/${name}`, {
        body: { ...made.json, spec: { ...made.json.spec, renewTime } },
      });
      expect(renewed.status, renewed.text).to.equal(200);
      expect(renewed.json.spec.renewTime).to.equal(renewTime);
      const stale = await raw('PUT', `${base}/${name}`, {
        body: { ...made.json, spec: { ...made.json.spec, holderIdentity: 'b' } },
      });
      expect(stale.json).to.deep.include({
        code: 409,
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      });
      expect(stale.json.details).to.deep.equal({ name, group: 'coordination.k8s.io', kind: 'leases' });
    });

    it('answers a Lease with a zero duration with 422 Invalid on spec.leaseDurationSeconds', async () => {
      const { raw, namespace } = session();
      const name = `lease-${suffix()}`;
      const answer = await raw('POST', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`, {
        body: { metadata: { name }, spec: { holderIdentity: 'a', leaseDurationSeconds: 0 } },
      });
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: `Lease.coordination.k8s.io "${name}" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`,
        details: {
          name,
          group: 'coordination.k8s.io',
          kind: 'Lease',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0: must be greater than 0',
              field: 'spec.leaseDurationSeconds',
            },
          ],
        },
      });
    });
  });
}
