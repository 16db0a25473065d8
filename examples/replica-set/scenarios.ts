/**
 * The PodSet controller's scenarios that run, under the same names, against the in-memory server
 * (`replica-set.spec.ts`) and against kube-apiserver (`spec/e2e/replica-set.spec.ts`), standalone and under the
 * manager. Neither server runs a kubelet, so a scenario reports Pods Ready itself, as the kubelet would, through
 * the Pod status subresource.
 * @module
 */
import { expect } from 'chai';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { firstValueFrom, mergeMap, type Observable, type Subscription } from 'rxjs';
import { apiErrors, manager, resourceClient, silentLogger, type ReconcileEvent } from '../../src/index.js';
import { waitForAsync } from '../shared/wait.js';
import { installPodSetCrd, POD, PODSET, type PodSet } from './podset.js';
import { replicaSet, replicaSetController } from './replica-set.js';
import type { ReplicaSetControllerOptions } from './options.js';
import { REPLICA_FAILURE, rfc3339 } from './status.js';

/** How the scenarios run the controller: `replicaSet` alone, or `replicaSetController` under a manager. */
export type ControllerMode = 'standalone' | 'manager';

/** A PodSet of `replicas` pods labelled `app=<name>`. */
export function podSet(name: string, replicas: number, image = 'registry.example.com/web:1.0'): PodSet {
  return {
    apiVersion: PODSET.apiVersion,
    kind: PODSET.kind,
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

/** The clients and helpers the scenarios (and the server-specific specs beside them) use, in one namespace. */
export interface ScenarioTools {
  readonly namespace: string;
  readonly podSets: ReturnType<typeof resourceClient<PodSet>>;
  readonly pods: ReturnType<typeof resourceClient<V1Pod>>;
  /** Starts the controller, scoped to the namespace; it is stopped after each test. */
  start(options?: Partial<ReplicaSetControllerOptions>): {
    readonly lines: string[];
    readonly events: ReconcileEvent[];
  };
  /** The pods the PodSet `name` controls that are not being deleted, by name. */
  podsOf(name: string): Promise<V1Pod[]>;
  /** Waits until the PodSet's status has `replicas` and `readyReplicas` and it controls `replicas` live pods. */
  settled(name: string, replicas: number, readyReplicas: number): Promise<PodSet>;
  /** Reports a pod Running and Ready, as the kubelet would. */
  ready(pod: V1Pod): Promise<void>;
}

/**
 * Registers the shared scenarios in the current `describe`, and returns the tools for the caller's own. Each call
 * works in a namespace of its own (created in `before`), installs the CRD (idempotent), and deletes what it created
 * afterwards (the namespace is left: kube-apiserver alone cannot finish deleting one).
 */
export function replicaSetScenarios(kubeConfig: () => KubeConfig, mode: ControllerMode = 'standalone'): ScenarioTools {
  const run = Math.random().toString(36).slice(2, 8);
  const namespace = `rs-${mode === 'manager' ? 'm' : 's'}-${run}`;
  let subscription: Subscription | undefined;
  const leases: string[] = [];
  const podSets = () => resourceClient<PodSet>(kubeConfig(), PODSET, { namespace });
  const pods = () => resourceClient<V1Pod>(kubeConfig(), POD, { namespace, fieldManager: 'scenario-kubelet' });

  const controller = (options: Partial<ReplicaSetControllerOptions>): Observable<ReconcileEvent> => {
    if (mode === 'standalone') return replicaSet(kubeConfig(), { namespace, ...options });
    leases.push(`replica-set-${run}-${leases.length}`);
    return manager({
      connection: kubeConfig(),
      name: leases.at(-1)!,
      controllers: [replicaSetController({ namespace, ...options })],
      leaderElection: { namespace },
      metrics: false,
      health: false,
      signals: false,
      logger: silentLogger(),
    }).pipe(mergeMap((event) => (event.type === 'controller' ? [event.event] : [])));
  };

  const tools: ScenarioTools = {
    namespace,
    get podSets() {
      return podSets();
    },
    get pods() {
      return pods();
    },
    start: (options = {}) => {
      const lines: string[] = [];
      const events: ReconcileEvent[] = [];
      subscription = controller({ print: (line) => lines.push(line), ...options }).subscribe((event) =>
        events.push(event),
      );
      return { lines, events };
    },
    podsOf: async (name) =>
      (await firstValueFrom(pods().list({ labelSelector: `app=${name}` }))).items.filter(
        (pod) => pod.metadata?.deletionTimestamp == null,
      ),
    settled: async (name, replicas, readyReplicas) => {
      let last: PodSet | undefined;
      let count = -1;
      await waitForAsync(
        async () => {
          last = await firstValueFrom(podSets().get(name));
          count = (await tools.podsOf(name)).length;
          return (
            count === replicas && last.status?.replicas === replicas && last.status.readyReplicas === readyReplicas
          );
        },
        () =>
          `PodSet ${name} to settle at ${replicas} pods, ${readyReplicas} ready; status ${JSON.stringify(last?.status)}, ${count} pods`,
        30_000,
      );
      return last!;
    },
    ready: async (pod) => {
      const now = rfc3339(Date.now());
      await firstValueFrom(
        pods().patchStatus(pod, {
          type: 'merge',
          body: {
            status: {
              phase: 'Running',
              conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
                type,
                status: 'True',
                lastTransitionTime: now,
              })),
            },
          },
        }),
      );
    },
  };

  before(async () => {
    const namespaces = resourceClient(kubeConfig(), { apiVersion: 'v1', kind: 'Namespace' });
    await firstValueFrom(namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    await installPodSetCrd(kubeConfig());
  });

  afterEach(async () => {
    subscription?.unsubscribe();
    subscription = undefined;
    // Finalizers a scenario left (its own, or a foreground deletion's) would keep PodSets forever without GC.
    for (const item of (await firstValueFrom(podSets().list())).items) {
      if ((item.metadata?.finalizers ?? []).length > 0) {
        await firstValueFrom(podSets().patch(item, { type: 'merge', body: { metadata: { finalizers: null } } })).catch(
          ignoreNotFound,
        );
      }
      await firstValueFrom(podSets().delete(item)).catch(ignoreNotFound);
    }
    for (const pod of (await firstValueFrom(pods().list())).items)
      await firstValueFrom(pods().delete(pod)).catch(ignoreNotFound);
  });

  after(async () => {
    const lease = resourceClient(kubeConfig(), { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }, { namespace });
    for (const name of leases) await firstValueFrom(lease.delete(name)).catch(ignoreNotFound);
  });

  it('keeps spec.replicas pods, each controlled by the PodSet, through scaling up and down, and reports them in status', async () => {
    const { lines } = tools.start();
    const created = await firstValueFrom(podSets().create(podSet('web', 3)));
    let status = await tools.settled('web', 3, 0);
    expect(status.status).to.deep.include({ observedGeneration: 1, selector: 'app=web' });
    expect(status.status?.conditions ?? []).to.deep.equal([]);
    for (const pod of await tools.podsOf('web')) {
      expect(pod.metadata?.generateName).to.equal('web-');
      expect(pod.metadata?.ownerReferences).to.deep.equal([
        {
          apiVersion: PODSET.apiVersion,
          kind: 'PodSet',
          name: 'web',
          uid: created.metadata!.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    const [first, second] = await tools.podsOf('web');
    await tools.ready(first!);
    await tools.ready(second!);
    await tools.settled('web', 3, 2);

    await firstValueFrom(podSets().patch('web', { type: 'merge', body: { spec: { replicas: 5 } } }));
    status = await tools.settled('web', 5, 2);
    expect(status.status?.observedGeneration).to.equal(2);

    // Down to 1: the three pods that are not ready go first, then the one ready most recently.
    await firstValueFrom(podSets().patch('web', { type: 'merge', body: { spec: { replicas: 1 } } }));
    await tools.settled('web', 1, 1);
    const [kept] = await tools.podsOf('web');
    expect([first!.metadata!.name, second!.metadata!.name]).to.include(kept!.metadata!.name);
    const tooMany = lines.filter((line) => line.startsWith('Too many replicas for PodSet'));
    expect(tooMany).to.have.length(1);
    expect(tooMany[0]).to.match(
      new RegExp(`^Too many replicas for PodSet ${namespace}/web: need 1, have 5, deleting 4: `),
    );
    expect(lines.filter((line) => line.startsWith('sync '))).to.deep.equal([]);
  });

  it('replaces a pod deleted by hand', async () => {
    const { lines } = tools.start();
    await firstValueFrom(podSets().create(podSet('web', 2)));
    await tools.settled('web', 2, 0);
    const [victim] = await tools.podsOf('web');
    await firstValueFrom(pods().delete(victim!));
    await waitForAsync(
      async () => (await tools.podsOf('web')).every((pod) => pod.metadata!.name !== victim!.metadata!.name),
      'the deleted pod to go',
      30_000,
    );
    await tools.settled('web', 2, 0);
    expect(lines).to.include(`Too few replicas for PodSet ${namespace}/web: need 2, have 1, creating 1`);
  });

  it('reports ReplicaFailure FailedCreate while the server refuses its pods, stops at the first slow-start batch, and clears it once the template is fixed', async () => {
    const { lines, events } = tools.start();
    // An empty image: the CRD's schema lets it through, the Pod validation of both servers refuses it.
    await firstValueFrom(podSets().create(podSet('broken', 4, '')));
    let last: PodSet | undefined;
    await waitForAsync(
      async () => {
        last = await firstValueFrom(podSets().get('broken'));
        return (
          last.status?.conditions?.some((c) => c.type === REPLICA_FAILURE) === true &&
          events.some((e) => e.type === 'retrying')
        );
      },
      () => `ReplicaFailure and a retry; status ${JSON.stringify(last?.status)}`,
      30_000,
    );
    const condition = last!.status!.conditions!.find((c) => c.type === REPLICA_FAILURE)!;
    expect(condition).to.deep.include({ status: 'True', reason: 'FailedCreate' });
    expect(condition.message).to.match(/spec\.containers\[0\]\.image: Required value/);
    // Each sync tried one pod: the first batch failed, the other three were skipped.
    expect(
      lines
        .filter((line) => line.startsWith(`PodSet ${namespace}/broken: slow-start batch of`))
        .every((line) => line.endsWith('batch of 1')),
    ).to.equal(true);
    expect(lines).to.include(
      `Slow-start failure for PodSet ${namespace}/broken: 4 of 4 creation(s) failed or skipped; lowering expectations`,
    );

    await firstValueFrom(
      podSets().patch('broken', {
        type: 'merge',
        body: {
          spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1.1' }] } } },
        },
      }),
    );
    const fixed = await tools.settled('broken', 4, 0);
    expect(fixed.status?.conditions ?? []).to.deep.equal([]);
  });

  it('creates no pods for a PodSet that is being deleted', async () => {
    const { lines } = tools.start();
    const held = podSet('held', 2);
    await firstValueFrom(
      podSets().create({ ...held, metadata: { ...held.metadata, finalizers: ['example.com/hold'] } }),
    );
    await tools.settled('held', 2, 0);
    await firstValueFrom(podSets().delete('held'));
    await waitForAsync(
      async () => (await firstValueFrom(podSets().get('held'))).metadata?.deletionTimestamp != null,
      'the deletionTimestamp',
      30_000,
    );
    const [victim] = await tools.podsOf('held');
    await firstValueFrom(pods().delete(victim!));
    await waitForAsync(
      async () =>
        lines.filter(
          (line) => line === `PodSet ${namespace}/held is being deleted; leaving its pods to the garbage collector`,
        ).length > 0 && (await tools.podsOf('held')).length === 1,
      'the controller to leave the deleting PodSet alone',
      30_000,
    );
    expect(lines.filter((line) => line.startsWith(`Too few replicas for PodSet ${namespace}/held`))).to.have.length(1);
  });

  return tools;
}

function ignoreNotFound(error: unknown): void {
  if (!apiErrors.isNotFound(error)) throw error;
}
