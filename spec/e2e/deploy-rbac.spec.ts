/**
 * Each example run on a real kube-apiserver as its deploy/ ServiceAccount, with nothing but the rights its deploy/
 * RBAC grants: its manifests applied as the guide says (`kubectl apply -k`), a token of its ServiceAccount
 * (TokenRequest API) in its kubeconfig, and its Deployment's own command, args and env, run from the image's files.
 * Each does its job (the pod logger syncs a Pod, the node labeler labels a Node, the PodSet controller creates,
 * deletes and reports Pods), leads on its Lease, records its Events, and nothing is refused along the way. Then the
 * other side: what each ServiceAccount may not do (kubectl auth can-i), and a rule taken away showing up at once as
 * a refusal the example reports.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, EventsV1Api, type V1Pod } from '@kubernetes/client-node';
import {
  buildImageFiles,
  containerStart,
  DEPLOY_NAMESPACE,
  deployedContainer,
  deployFolders,
  deployObjects,
  type DeployFolder,
} from '../../examples/shared/deploy-support.js';
import { servedUrls, type ExampleProcess } from '../../examples/shared/spec-support.js';
import { demoPodSet } from '../../examples/replica-set/workload.js';
import { PODSET, PODSET_GROUP } from '../../examples/replica-set/podset.js';
import { waitFor, waitForAsync } from '../support/wait.js';
import type { ClusterHandle } from '../../src/testing/cluster.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/control-plane/index.js';
import { e2eCluster, isE2eRun, ownsControlPlane } from './support/cluster.js';
import {
  ensureDeployNamespace,
  kubectl,
  refusals,
  serviceAccountKubeconfig,
  startDeployed,
  stopDeployed,
} from './support/deployed.js';
import { canI, ownerReference, restrictedPod, untilOwnerKindAdmitted } from './support/rbac.js';

if (isE2eRun()) {
  describe('the examples as their deploy/ ServiceAccounts, with only their RBAC, on a real kube-apiserver', function () {
    this.timeout(180_000);
    let cluster: ClusterHandle;
    /** A control plane of this spec's own, with OwnerReferencesPermissionEnforcement; none on an existing cluster. */
    let own: ControlPlane | undefined;
    let dir: string;
    let admin: string;
    let app: string;
    let core: CoreV1Api;
    const folder = (example: string): DeployFolder =>
      deployFolders().find((candidate) => candidate.example === example)!;
    const kubeconfigOf = (example: string): string => join(dir, `${example}.kubeconfig`);
    const suffix = Math.random().toString(36).slice(2, 7);

    before(async () => {
      // OwnerReferencesPermissionEnforcement, which some production clusters run, makes blockOwnerDeletion need the
      // right to update the owner's finalizers, as the deploy/ RBAC grants it. A control plane of its own, so the
      // shared one stays as every other spec expects it (the plugin refuses owner references to a kind its discovery
      // cache has not seen yet, for up to 30 s after a CRD is installed).
      own = ownsControlPlane
        ? await startControlPlane({
            apiServerArgs: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
          })
        : undefined;
      cluster = own ?? (await e2eCluster()).handle;
      core = cluster.kubeConfig.makeApiClient(CoreV1Api);
      dir = mkdtempSync(join(tmpdir(), 'rxkube-deploy-rbac-'));
      admin = join(dir, 'admin.kubeconfig');
      await cluster.writeKubeconfig(admin);
      await ensureDeployNamespace(core);
      app = buildImageFiles();
      for (const each of deployFolders()) {
        const applied = await kubectl(admin, ['apply', '-k', each.dir]);
        expect(applied.code, applied.stderr).to.equal(0);
        const account = deployObjects(each).find((object) => object.kind === 'ServiceAccount')!.metadata!;
        await serviceAccountKubeconfig(
          cluster.kubeConfig,
          account.namespace!,
          account.name!,
          kubeconfigOf(each.example),
        );
      }
    });

    after(async () => {
      if (own !== undefined) {
        await own.stop();
      } else {
        // An existing cluster keeps the CRDs (deleting one deletes every object of its kind) and the namespace.
        const selector = '-l=app.kubernetes.io/part-of=rxkube-examples';
        await kubectl(admin, [
          'delete',
          'clusterrole,clusterrolebinding,role,rolebinding,serviceaccount,deployment',
          '-A',
          selector,
          '--wait=false',
        ]);
      }
      rmSync(dir, { recursive: true, force: true });
      if (app) rmSync(app, { recursive: true, force: true });
    });

    /**
     * Runs the example of `example` as deployed until `job` is done, checks it led, was ready, stopped cleanly and
     * was refused nothing; returns it.
     */
    async function runDeployed(
      example: string,
      job: (running: ExampleProcess) => Promise<void>,
      refusalsExpected = false,
    ): Promise<ExampleProcess> {
      const running = startDeployed(app, folder(example), kubeconfigOf(example));
      let stopped: [number | null, string | null] | undefined;
      try {
        // Leading, or (sharded) running some hash ranges.
        await waitFor(
          () =>
            running.stdout().includes(`${example}: leading`) || running.stdout().includes(`${example}: runs ranges 0`),
          () => `${example} to lead or run ranges:\n${running.output()}`,
          60_000,
        );
        expect(running.stdout()).to.contain(`${example}: using ${kubeconfigOf(example)}`);
        await job(running).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}\n--- what ${example} said:\n${running.output()}`, {
            cause: error,
          });
        });
        const ready = await fetch(`${servedUrls(running.stdout()).health}/readyz`);
        expect(ready.status, `/readyz: ${await ready.text()}`).to.equal(200);
      } finally {
        stopped = await stopDeployed(running);
      }
      expect(stopped, running.output()).to.deep.equal([0, null]);
      if (!refusalsExpected) expect(refusals(running).join('\n'), 'refused requests').to.equal('');
      return running;
    }

    describe('pod-logger', () => {
      it('syncs the Pods of its namespace and sees them go, leading on its Lease, refused nothing', async () => {
        const name = `probe-${suffix}`;
        await runDeployed('pod-logger', async (running) => {
          await core.createNamespacedPod({ namespace: DEPLOY_NAMESPACE, body: restrictedPod(name) });
          await waitFor(
            () => running.stdout().includes(`Sync/Add/Update for Pod ${name}`),
            `the sync of ${name}`,
            30_000,
          );
          await core.deleteNamespacedPod({ namespace: DEPLOY_NAMESPACE, name });
          await waitFor(
            () => running.stdout().includes(`Pod ${DEPLOY_NAMESPACE}/${name} does not exist anymore`),
            `the delete of ${name}`,
            30_000,
          );
        });
        // The Lease is in the Pod's namespace, released (no holder) by the graceful stop.
        const lease = await cluster.kubeConfig
          .makeApiClient(CoordinationV1Api)
          .readNamespacedLease({ namespace: DEPLOY_NAMESPACE, name: 'pod-logger' });
        expect(lease.spec?.holderIdentity ?? '').to.equal('');
      });

      it('may not read other namespaces, write Pods, touch other Leases, read Secrets or record Events', async () => {
        expect(
          await canI(kubeconfigOf('pod-logger'), [
            `yes watch pods -n ${DEPLOY_NAMESPACE}`,
            `yes update leases/pod-logger -n ${DEPLOY_NAMESPACE}`,
            `no list pods -n default`,
            `no create pods -n ${DEPLOY_NAMESPACE}`,
            `no delete pods -n ${DEPLOY_NAMESPACE}`,
            `no update leases/node-labeler -n ${DEPLOY_NAMESPACE}`,
            `no list secrets -n ${DEPLOY_NAMESPACE}`,
            `no create events.events.k8s.io -n ${DEPLOY_NAMESPACE}`,
          ]),
        ).to.deep.equal([]);
      });
    });

    describe('node-labeler', () => {
      const prefix = (): string => {
        const { args } = containerStart(deployedContainer(folder('node-labeler')).container, {
          'metadata.namespace': DEPLOY_NAMESPACE,
        });
        return args.find((arg) => arg.startsWith('--provider-id-prefix='))!.split('=')[1]!;
      };
      const createNode = (name: string) =>
        core.createNode({ body: { metadata: { name }, spec: { providerID: `${prefix()}docker/rxkube/${name}` } } });
      const eventReasons = async (name: string): Promise<string[]> => {
        const events = await cluster.kubeConfig
          .makeApiClient(EventsV1Api)
          .listNamespacedEvent({ namespace: 'default' });
        return events.items
          .filter((event) => event.regarding?.kind === 'Node' && event.regarding.name === name)
          .map((event) => event.reason!);
      };

      it('labels a Node that joined through its provider and records the Event in default, refused nothing', async () => {
        const name = `rbac-node-${suffix}`;
        await createNode(name);
        try {
          await runDeployed('node-labeler', async () => {
            await waitForAsync(
              async () => (await core.readNode({ name })).metadata?.labels?.['rxkube.io/cloud-node'] === 'true',
              `the label on ${name}`,
              30_000,
            );
            await waitForAsync(
              async () => (await eventReasons(name)).includes('Labeled'),
              `the Labeled Event of ${name}`,
              30_000,
            );
          });
        } finally {
          await core.deleteNode({ name });
        }
      });

      it('may not delete, replace or write the status of Nodes, nor record Events outside default, nor read Secrets', async () => {
        expect(
          await canI(kubeconfigOf('node-labeler'), [
            `yes patch nodes`,
            `yes create events.events.k8s.io -n default`,
            `no delete nodes`,
            `no update nodes`,
            `no patch nodes --subresource=status`,
            `no create events.events.k8s.io -n kube-system`,
            `no list secrets -A`,
          ]),
        ).to.deep.equal([]);
      });

      it('needs its patch: without it, the label write is refused, reported, and the Node stays unlabelled', async () => {
        const role = 'clusterrole/rxkube-examples:node-labeler';
        const name = `rbac-refused-${suffix}`;
        const taken = await kubectl(admin, [
          'patch',
          role,
          '--type=json',
          '-p',
          '[{"op":"replace","path":"/rules/0/verbs","value":["get","list","watch"]}]',
        ]);
        expect(taken.code, taken.stderr).to.equal(0);
        await waitForAsync(
          async () => (await canI(kubeconfigOf('node-labeler'), ['no patch nodes'])).length === 0,
          'patch nodes to be taken away',
          10_000,
        );
        await createNode(name);
        try {
          const running = await runDeployed(
            'node-labeler',
            async (example) => {
              await waitFor(
                () => refusals(example).length > 0,
                () => `a refusal reported:\n${example.output()}`,
                30_000,
              );
              await waitForAsync(
                async () => (await eventReasons(name)).includes('LabelFailed'),
                `the LabelFailed Event of ${name}`,
                30_000,
              );
            },
            true,
          );
          expect(refusals(running).join('\n')).to.contain('cannot patch resource "nodes"');
          expect((await core.readNode({ name })).metadata?.labels?.['rxkube.io/cloud-node']).to.equal(undefined);
        } finally {
          await core.deleteNode({ name });
          const restored = await kubectl(admin, ['apply', '-k', folder('node-labeler').dir]);
          expect(restored.code, restored.stderr).to.equal(0);
        }
      });
    });

    describe('replica-set', () => {
      const namespace = `rbac-podsets-${suffix}`;
      const objects = (): CustomObjectsApi => cluster.kubeConfig.makeApiClient(CustomObjectsApi);
      const [group, version] = PODSET.apiVersion.split('/') as [string, string];
      const ownedPods = async (name: string): Promise<V1Pod[]> =>
        (await core.listNamespacedPod({ namespace })).items.filter(
          (pod) =>
            pod.metadata?.ownerReferences?.some((owner) => owner.kind === 'PodSet' && owner.name === name) &&
            !pod.metadata.deletionTimestamp,
        );

      before(async () => {
        const established = await kubectl(admin, [
          'wait',
          '--for=condition=Established',
          `crd/podsets.${PODSET_GROUP}`,
          '--timeout=60s',
        ]);
        expect(established.code, established.stderr).to.equal(0);
        await core.createNamespace({ body: { metadata: { name: namespace } } });
        // Right after the CRD is installed, the owner references would be refused for a while (see the helper).
        await untilOwnerKindAdmitted(kubeconfigOf('replica-set'), namespace, {
          ...restrictedPod('owner-probe'),
          metadata: { name: 'owner-probe', ownerReferences: [ownerReference(PODSET.apiVersion, PODSET.kind)] },
        });
      });

      after(async () => {
        await core.deleteNamespace({ name: namespace }).catch(() => undefined);
      });

      it('creates the Pods of a PodSet, deletes one on a scale down, writes the status and records Events, refused nothing', async () => {
        const podSet = demoPodSet(2, 'web');
        await runDeployed('replica-set', async () => {
          await objects().createNamespacedCustomObject({
            group,
            version,
            namespace,
            plural: 'podsets',
            body: { ...podSet, metadata: { ...podSet.metadata, namespace } },
          });
          await waitForAsync(async () => (await ownedPods('web')).length === 2, 'two Pods of web', 30_000);
          await waitForAsync(
            async () => {
              const current = (await objects().getNamespacedCustomObject({
                group,
                version,
                namespace,
                plural: 'podsets',
                name: 'web',
              })) as { status?: { replicas?: number } };
              return current.status?.replicas === 2;
            },
            'the status of web to say 2 replicas',
            30_000,
          );
          const scaled = await kubectl(admin, [
            'patch',
            'podset',
            'web',
            '-n',
            namespace,
            '--type=merge',
            '-p',
            '{"spec":{"replicas":1}}',
          ]);
          expect(scaled.code, scaled.stderr).to.equal(0);
          await waitForAsync(async () => (await ownedPods('web')).length === 1, 'one Pod of web', 30_000);
          await waitForAsync(
            async () => {
              const events = await cluster.kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
              const reasons = events.items.map((event) => event.reason);
              return reasons.includes('SuccessfulCreate') && reasons.includes('SuccessfulDelete');
            },
            'the SuccessfulCreate and SuccessfulDelete Events',
            30_000,
          );
        });
      });

      it("may not change a PodSet's spec, delete PodSets, replace Pods or read Secrets", async () => {
        expect(
          await canI(kubeconfigOf('replica-set'), [
            `yes create pods -n ${namespace}`,
            `yes patch podsets.examples.rxkube.io --subresource=status -n ${namespace}`,
            `no patch podsets.examples.rxkube.io -n ${namespace}`,
            `no delete podsets.examples.rxkube.io -n ${namespace}`,
            `no update pods -n ${namespace}`,
            `no get pods -n ${namespace}`,
            `no list secrets -A`,
          ]),
        ).to.deep.equal([]);
      });

      // This spec's control plane runs OwnerReferencesPermissionEnforcement; an existing cluster may not.
      if (ownsControlPlane)
        it('needs podsets/finalizers: without it, creating Pods owned with blockOwnerDeletion is refused', async () => {
          const taken = await kubectl(admin, [
            'patch',
            'clusterrole/rxkube-examples:replica-set',
            '--type=json',
            '-p',
            '[{"op":"remove","path":"/rules/2"}]',
          ]);
          expect(taken.code, taken.stderr).to.equal(0);
          try {
            const podSet = demoPodSet(1, 'blocked');
            await objects().createNamespacedCustomObject({
              group,
              version,
              namespace,
              plural: 'podsets',
              body: { ...podSet, metadata: { ...podSet.metadata, namespace } },
            });
            const running = await runDeployed(
              'replica-set',
              async (example) => {
                await waitFor(
                  () =>
                    refusals(example).some((line) =>
                      line.includes(
                        "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
                      ),
                    ),
                  () => `the refused create:\n${example.output()}`,
                  30_000,
                );
              },
              true,
            );
            expect(await ownedPods('blocked')).to.deep.equal([]);
            expect(running.stdout()).to.contain('blocked');
          } finally {
            const restored = await kubectl(admin, ['apply', '-k', folder('replica-set').dir]);
            expect(restored.code, restored.stderr).to.equal(0);
          }
        });
    });

    describe('website-operator', () => {
      const namespace = `rbac-websites-${suffix}`;
      const objects = (): CustomObjectsApi => cluster.kubeConfig.makeApiClient(CustomObjectsApi);
      const website = { group: 'example.rxkube.io', version: 'v1alpha1', namespace, plural: 'websites' };
      const owned = async (): Promise<string[]> => {
        const listed = await kubectl(admin, ['get', 'deployments,services,configmaps', '-n', namespace, '-o', 'json']);
        const { items } = JSON.parse(listed.stdout) as {
          items: Array<{ kind: string; metadata: { name: string; ownerReferences?: Array<{ kind: string }> } }>;
        };
        return items
          .filter((item) => item.metadata.ownerReferences?.some((owner) => owner.kind === 'Website'))
          .map((item) => `${item.kind}/${item.metadata.name}`)
          .sort();
      };

      before(async () => {
        const established = await kubectl(admin, [
          'wait',
          '--for=condition=Established',
          'crd/websites.example.rxkube.io',
          '--timeout=60s',
        ]);
        expect(established.code, established.stderr).to.equal(0);
        await core.createNamespace({ body: { metadata: { name: namespace } } });
        // Right after the CRD is installed, the owner references would be refused for a while (see the helper).
        await untilOwnerKindAdmitted(kubeconfigOf('website-operator'), namespace, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'owner-probe', ownerReferences: [ownerReference('example.rxkube.io/v1alpha1', 'Website')] },
        });
      });

      after(async () => {
        await core.deleteNamespace({ name: namespace }).catch(() => undefined);
      });

      it('applies the objects of a Website, writes its status and finalizer, cleans up on delete and records Events, refused nothing', async () => {
        await runDeployed('website-operator', async () => {
          await objects().createNamespacedCustomObject({
            ...website,
            body: {
              apiVersion: 'example.rxkube.io/v1alpha1',
              kind: 'Website',
              metadata: { name: 'site', namespace },
              spec: { content: '<h1>deployed</h1>', image: 'registry.example.com/nginx:1.27', replicas: 1 },
            },
          });
          await waitForAsync(
            async () => (await owned()).length === 3,
            'the ConfigMap, Deployment and Service of site',
            30_000,
          );
          expect(await owned()).to.deep.equal(['ConfigMap/site-content', 'Deployment/site', 'Service/site']);
          await waitForAsync(
            async () => {
              const current = (await objects().getNamespacedCustomObject({ ...website, name: 'site' })) as {
                metadata: { finalizers?: string[] };
                status?: { observedGeneration?: number };
              };
              return current.status?.observedGeneration === 1 && (current.metadata.finalizers ?? []).length > 0;
            },
            'the status and the finalizer of site',
            30_000,
          );
          await objects().deleteNamespacedCustomObject({ ...website, name: 'site' });
          await waitForAsync(
            async () =>
              objects()
                .getNamespacedCustomObject({ ...website, name: 'site' })
                .then(
                  () => false,
                  () => true,
                ),
            'site to be gone (finalizer removed)',
            30_000,
          );
          await waitForAsync(
            async () => {
              const events = await cluster.kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
              return events.items.some((event) => event.regarding?.kind === 'Website');
            },
            'an Event about site',
            30_000,
          );
        });
      });

      it('may not get, replace or delete what it owns, delete Websites, install CRDs or read Secrets', async () => {
        expect(
          await canI(kubeconfigOf('website-operator'), [
            `yes patch deployments.apps -n ${namespace}`,
            `yes patch websites.example.rxkube.io --subresource=status -n ${namespace}`,
            `no get deployments.apps -n ${namespace}`,
            `no delete deployments.apps -n ${namespace}`,
            `no update configmaps -n ${namespace}`,
            `no delete websites.example.rxkube.io -n ${namespace}`,
            'no create customresourcedefinitions.apiextensions.k8s.io',
            'no list secrets -A',
          ]),
        ).to.deep.equal([]);
      });
    });
  });
}
