/**
 * The PodSet controller against a real kube-apiserver: the scenarios the in-memory server also runs
 * (examples/replica-set/scenarios.ts), standalone and under the manager, with the CRD installed here (structural
 * schema, CEL rules, status and scale subresources, printer columns), kube-apiserver's own Pod validation and
 * resourceVersions. Then what differs: this control plane runs no kube-controller-manager, so no garbage collector
 * deletes a PodSet's Pods; what can be checked is everything the garbage collector would follow.
 */
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { ApiError, resourceClient } from '../../src/index.js';
import { transportOf } from '../../src/extend.js';
import { waitFor, waitForAsync } from '../support/wait.js';
import { podSetCrd, PODSET, type PodSet } from '../../examples/replica-set/podset.js';
import { podSet, replicaSetScenarios } from '../../examples/replica-set/scenarios.js';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';

if (isE2eRun()) {
  describe('the replica-set example against a real kube-apiserver', function () {
    this.timeout(120000);
    let cluster: E2eCluster;

    before(async () => {
      cluster = await e2eCluster();
    });

    describe('scenarios shared with the in-memory server', () => {
      const tools = replicaSetScenarios(() => cluster.handle.kubeConfig);

      it('has its CRD accepted as written: structural, Established, with the status and scale subresources and the printer columns', async () => {
        const crds = resourceClient<any>(cluster.handle.kubeConfig, {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
        });
        const crd = await firstValueFrom(crds.get(podSetCrd().metadata!.name!));
        const conditions = Object.fromEntries(
          (crd.status.conditions as Array<{ type: string; status: string }>).map((c) => [c.type, c.status]),
        );
        expect(conditions).to.deep.include({ NamesAccepted: 'True', Established: 'True' });
        expect(conditions).to.not.have.property('NonStructuralSchema');
        const [version] = crd.spec.versions;
        expect(version.subresources).to.deep.equal({
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        });
        expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).to.deep.equal([
          'Desired',
          'Current',
          'Ready',
          'Age',
        ]);
        // The printer columns, as `kubectl get podsets` asks for them: a Table.
        await firstValueFrom(tools.podSets.create(podSet('columns', 0)));
        const table = (await firstValueFrom(
          transportOf(cluster.handle.kubeConfig).get(
            `/apis/${PODSET.apiVersion}/namespaces/${tools.namespace}/podsets`,
            {},
            { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
          ),
        )) as { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> };
        expect(table.columnDefinitions.map((c) => c.name)).to.deep.equal([
          'Name',
          'Desired',
          'Current',
          'Ready',
          'Age',
        ]);
        expect(table.rows.map((row) => row.cells.slice(0, 2))).to.deep.equal([['columns', 0]]);
      });

      it('has the API server refuse a selector that does not match the template, a changed selector, and negative replicas', async () => {
        const refusal = async (body: PodSet | (() => Promise<unknown>)): Promise<string> => {
          try {
            await (typeof body === 'function' ? body() : firstValueFrom(tools.podSets.create(body)));
          } catch (error) {
            expect(error).to.be.instanceOf(ApiError);
            expect((error as ApiError).code).to.equal(422);
            return (error as ApiError).message;
          }
          throw new Error('the API server accepted it');
        };
        const mismatch = podSet('mismatch', 1);
        mismatch.spec!.selector = { matchLabels: { app: 'other' } };
        expect(await refusal(mismatch)).to.contain('selector does not match template labels');
        const negative = podSet('negative', -1);
        expect(await refusal(negative)).to.match(
          /spec\.replicas: Invalid value: -1: spec\.replicas in body should be greater than or equal to 0/,
        );
        await firstValueFrom(tools.podSets.create(podSet('fixed', 0)));
        expect(
          await refusal(() =>
            firstValueFrom(
              tools.podSets.patch('fixed', {
                type: 'merge',
                body: {
                  spec: {
                    selector: { matchLabels: { app: 'fixed', tier: 'web' } },
                    template: { metadata: { labels: { app: 'fixed', tier: 'web' } } },
                  },
                },
              }),
            ),
          ),
        ).to.contain('selector is immutable');
        // A PodSet without replicas gets the schema's default.
        const defaulted = podSet('defaulted', 1);
        delete defaulted.spec!.replicas;
        expect((await firstValueFrom(tools.podSets.create(defaulted))).spec?.replicas).to.equal(1);
      });

      it('scales through the scale subresource, as kubectl scale and an autoscaler do, which reads the selector from status', async () => {
        tools.start();
        await firstValueFrom(tools.podSets.create(podSet('scaled', 1)));
        await tools.settled('scaled', 1, 0);
        const scalePath = `/apis/${PODSET.apiVersion}/namespaces/${tools.namespace}/podsets/scaled/scale`;
        const transport = transportOf(cluster.handle.kubeConfig);
        await firstValueFrom(
          transport.request({
            method: 'PATCH',
            path: scalePath,
            body: { spec: { replicas: 3 } },
            contentType: 'application/merge-patch+json',
          }),
        );
        await tools.settled('scaled', 3, 0);
        const scale = (await firstValueFrom(transport.get(scalePath, {}))) as {
          spec: { replicas: number };
          status: { replicas: number; selector: string };
        };
        expect(scale.spec.replicas).to.equal(3);
        expect(scale.status).to.deep.equal({ replicas: 3, selector: 'app=scaled' });
      });

      it('leaves the deletion of its pods to the garbage collector: each carries the reference it follows, and a foreground delete waits for them', async () => {
        const { lines } = tools.start();
        const created = await firstValueFrom(tools.podSets.create(podSet('gc', 2)));
        await tools.settled('gc', 2, 0);
        for (const pod of await tools.podsOf('gc')) {
          expect(pod.metadata?.ownerReferences).to.deep.equal([
            {
              apiVersion: PODSET.apiVersion,
              kind: 'PodSet',
              name: 'gc',
              uid: created.metadata!.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ]);
        }
        // kube-apiserver marks the PodSet and adds the foregroundDeletion finalizer; kube-controller-manager's garbage
        // collector would now delete the pods (blockOwnerDeletion holds the PodSet until they are gone) and then
        // remove the finalizer. Nothing does here, so the PodSet waits, and the controller must not replace pods.
        await firstValueFrom(tools.podSets.delete('gc', { propagationPolicy: 'Foreground' }));
        const deleting = await firstValueFrom(tools.podSets.get('gc'));
        expect(deleting.metadata?.deletionTimestamp).to.be.a('string');
        expect(deleting.metadata?.finalizers).to.deep.equal(['foregroundDeletion']);
        await waitFor(
          () =>
            lines.includes(`PodSet ${tools.namespace}/gc is being deleted; leaving its pods to the garbage collector`),
          'the controller to see it',
          30_000,
        );
        // Do the garbage collector's work: the dependents, then the finalizer.
        for (const pod of await tools.podsOf('gc')) await firstValueFrom(tools.pods.delete(pod));
        await firstValueFrom(tools.podSets.patch('gc', { type: 'merge', body: { metadata: { finalizers: null } } }));
        await waitFor(
          () => lines.includes(`PodSet ${tools.namespace}/gc has been deleted`),
          'the controller to see it gone',
          30_000,
        );
        await waitForAsync(async () => (await tools.podsOf('gc')).length === 0, 'no pods', 30_000);
        expect(
          lines.filter((line) => line.startsWith(`Too few replicas for PodSet ${tools.namespace}/gc`)),
        ).to.have.length(1);
      });
    });

    describe('scenarios shared with the in-memory server, under the manager', () => {
      replicaSetScenarios(() => cluster.handle.kubeConfig, 'manager');
    });
  });
}
