/** Contract: metadata.generation, the status subresource, and finalizers on delete. */
import type { V1Deployment } from '@kubernetes/client-node';
import { expect } from 'chai';
import { contractTargets, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  function deploymentBody(name: string): V1Deployment {
    const labels = { app: name };
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    };
  }

  describe(`contract (${target.name}): metadata`, () => {
    const session = useContractSession(target, 'contract-meta');
    // Deployments go through client-node's typed AppsV1Api, so its (de)serialisation is part of the contract too.
    async function createDeployment(): Promise<V1Deployment> {
      const { apps, namespace } = session();
      return apps.createNamespacedDeployment({ namespace, body: deploymentBody(`dep-${suffix()}`) });
    }

    const replaceDeployment = (body: V1Deployment): Promise<V1Deployment> =>
      session().apps.replaceNamespacedDeployment({ name: body.metadata!.name!, namespace: session().namespace, body });

    const replaceDeploymentStatus = (body: V1Deployment): Promise<V1Deployment> =>
      session().apps.replaceNamespacedDeploymentStatus({
        name: body.metadata!.name!,
        namespace: session().namespace,
        body,
      });

    it('sets generation 1 on create and keeps it on label and status changes', async () => {
      const made = await createDeployment();
      expect(made.metadata?.generation).to.equal(1);

      const labelled = await replaceDeployment({ ...made, metadata: { ...made.metadata, labels: { x: 'y' } } });
      expect(labelled.metadata?.generation).to.equal(1);
      expect(labelled.metadata?.labels).to.deep.equal({ x: 'y' });

      const withStatus = await replaceDeploymentStatus({ ...labelled, status: { observedGeneration: 1, replicas: 1 } });
      expect(withStatus.metadata?.generation).to.equal(1);
      expect(withStatus.status?.replicas).to.equal(1);
    });

    it('bumps a Deployment generation by one on a spec change', async () => {
      const made = await createDeployment();
      const scaled = await replaceDeployment({ ...made, spec: { ...made.spec!, replicas: 3 } });
      expect(scaled.metadata?.generation).to.equal(2);
      expect(BigInt(scaled.metadata!.resourceVersion!) > BigInt(made.metadata!.resourceVersion!)).to.equal(true);
    });

    // The Deployment strategy copies annotations to ReplicaSets, so it counts an annotation change as a new
    // generation (apps/deployment strategy PrepareForUpdate); other workload types do not.
    it('bumps a Deployment generation on an annotation change', async () => {
      const made = await createDeployment();
      const annotated = await replaceDeployment({
        ...made,
        metadata: { ...made.metadata, annotations: { note: 'n' } },
      });
      expect(annotated.metadata?.generation).to.equal(2);
    });

    it('leaves a ConfigMap without a generation', async () => {
      const { raw, namespace } = session();
      const made = await raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        body: { metadata: { name: `cm-${suffix()}` }, data: { a: '1' } },
      });
      expect(made.json.metadata).to.not.have.property('generation');
    });

    it('changes only status through /status and ignores status on the main endpoint', async () => {
      const made = await createDeployment();
      const viaStatus = await replaceDeploymentStatus({
        ...made,
        metadata: { ...made.metadata, labels: { sneaky: 'label' } },
        spec: { ...made.spec!, replicas: 5 },
        status: { observedGeneration: 1, replicas: 1, readyReplicas: 1 },
      });
      expect(viaStatus.status).to.deep.include({ observedGeneration: 1, replicas: 1, readyReplicas: 1 });
      expect(viaStatus.spec?.replicas).to.equal(1);
      expect(viaStatus.metadata?.labels ?? {}).to.not.have.property('sneaky');

      const viaMain = await replaceDeployment({ ...viaStatus, status: { observedGeneration: 7, replicas: 9 } });
      expect(viaMain.status).to.deep.equal(viaStatus.status);
      expect(viaMain.metadata?.generation).to.equal(1);
    });

    it('keeps an object with a finalizer after DELETE, marked with a deletionTimestamp, until the finalizer goes', async () => {
      const { raw, namespace } = session();
      const name = `fin-${suffix()}`;
      const path = `/api/v1/namespaces/${namespace}/configmaps/${name}`;
      const made = await raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        body: { metadata: { name, finalizers: ['example.com/hold'] } },
      });
      expect(made.status).to.equal(201);

      const deleting = await raw('DELETE', path);
      expect(deleting.status).to.equal(200);
      expect(deleting.json.kind).to.equal('ConfigMap');
      expect(deleting.json.metadata.deletionTimestamp).to.be.a('string');
      expect(deleting.json.metadata.deletionGracePeriodSeconds).to.equal(0);

      const held = await raw('GET', path);
      expect(held.status).to.equal(200);
      expect(held.json.metadata.finalizers).to.deep.equal(['example.com/hold']);
      expect(held.json.metadata.deletionTimestamp).to.equal(deleting.json.metadata.deletionTimestamp);

      const released = await raw('PUT', path, {
        body: { ...held.json, metadata: { ...held.json.metadata, finalizers: [] } },
      });
      expect(released.status, released.text).to.equal(200);
      expect((await raw('GET', path)).status).to.equal(404);
    });

    it('refuses a new finalizer on an object that is being deleted', async () => {
      const { raw, namespace } = session();
      const name = `fin-${suffix()}`;
      const path = `/api/v1/namespaces/${namespace}/configmaps/${name}`;
      await raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        body: { metadata: { name, finalizers: ['example.com/hold'] } },
      });
      const deleting = (await raw('DELETE', path)).json;
      const added = await raw('PUT', path, {
        body: { ...deleting, metadata: { ...deleting.metadata, finalizers: ['example.com/hold', 'example.com/more'] } },
      });
      expect(added.status).to.equal(422);
      expect(added.json).to.deep.include({ reason: 'Invalid' });
      expect(added.json.message).to.contain('no new finalizers can be added if the object is being deleted');
      await raw('PUT', path, { body: { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } } });
    });
  });
}
