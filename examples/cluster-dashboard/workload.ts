/**
 * The workload `npm run example -- cluster-dashboard` plays on the embedded cluster, until it stops: PodSets
 * created, scaled, a Pod deleted by hand, and a PodSet whose Pods the API server refuses (so the page shows failed
 * runs and their retries) fixed later; the replica set example's stand-in kubelet marks the Pods Ready.
 * @module
 */
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { firstValueFrom, fromEvent, takeUntil } from 'rxjs';
import { apiErrors, owners, resourceClient } from '../../src/index.js';
import { messageOf } from '../shared/health.js';
import { POD, PODSET, type PodSet } from '../replica-set/podset.js';
import { DEMO_NAMESPACE, demoPodSet, simulatedKubelet } from '../replica-set/workload.js';

/** The PodSet whose template has no image: every Pod create is refused until a step fixes it. */
export const BROKEN_PODSET = 'broken';

/** Time between two steps of the workload, ms. */
export const DEFAULT_STEP_MS = 3000;

interface Clients {
  readonly podSets: ReturnType<typeof resourceClient<PodSet>>;
  readonly pods: ReturnType<typeof resourceClient<V1Pod>>;
}

/** One step: what it says it does, and doing it. */
interface Step {
  readonly describe: string;
  readonly run: (clients: Clients) => Promise<unknown>;
}

const scale = (name: string, replicas: number): Step => ({
  describe: `scale PodSet ${name} to ${replicas}`,
  run: (c) => firstValueFrom(c.podSets.patch(name, { type: 'merge', body: { spec: { replicas } } })),
});

/** The steps, played in a loop: each leaves the cluster in a state the next one expects, or tolerates. */
export const dashboardSteps: readonly Step[] = [
  scale('web', 5),
  {
    describe: "delete one of api's pods by hand (the controller replaces it)",
    run: async (c) => {
      const victim = (await firstValueFrom(c.pods.list())).items.find(
        (pod) => owners.controllerOf(pod)?.name === 'api' && pod.metadata?.deletionTimestamp == null,
      );
      if (victim !== undefined) await firstValueFrom(c.pods.delete(victim));
    },
  },
  {
    describe: `create PodSet ${BROKEN_PODSET} with 2 replicas and no image (the API server refuses its pods)`,
    run: (c) => firstValueFrom(c.podSets.create(withoutImage(demoPodSet(2, BROKEN_PODSET)))),
  },
  scale('api', 4),
  scale('web', 2),
  {
    describe: `give PodSet ${BROKEN_PODSET} an image (its pods are created)`,
    run: (c) =>
      firstValueFrom(
        c.podSets.patch(BROKEN_PODSET, {
          type: 'merge',
          body: {
            spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1.1' }] } } },
          },
        }),
      ),
  },
  scale('api', 2),
  { describe: `delete PodSet ${BROKEN_PODSET}`, run: (c) => firstValueFrom(c.podSets.delete(BROKEN_PODSET)) },
  scale('web', 3),
];

/**
 * Creates the PodSets `web` (3) and `api` (2) in `default`, then plays {@link dashboardSteps} in a loop, one every
 * `stepMs`, with the stand-in kubelet running, until `signal` is aborted. Resolves then.
 *
 * # Guarantees
 * - A step that fails is narrated (`workload: … failed: …`) and the loop goes on; nothing it does can stop the
 *   dashboard.
 */
export async function runDashboardWorkload(
  kubeConfig: KubeConfig,
  narrate: (line: string) => void,
  signal: AbortSignal,
  { stepMs = DEFAULT_STEP_MS }: { readonly stepMs?: number } = {},
): Promise<void> {
  // The kubelet's "Running and Ready" line per Pod would drown the steps: only its failures are told.
  simulatedKubelet(kubeConfig, (line) => {
    if (line.includes('could not')) narrate(line);
  })
    .pipe(takeUntil(fromEvent(signal, 'abort')))
    .subscribe();
  const clients: Clients = {
    podSets: resourceClient<PodSet>(kubeConfig, PODSET, { namespace: DEMO_NAMESPACE }),
    pods: resourceClient<V1Pod>(kubeConfig, POD, { namespace: DEMO_NAMESPACE }),
  };
  const play = async (step: Step): Promise<void> => {
    narrate(`workload: ${step.describe}`);
    try {
      await step.run(clients);
    } catch (error) {
      if (!apiErrors.isAlreadyExists(error) && !apiErrors.isNotFound(error))
        narrate(`workload: ${step.describe} failed: ${messageOf(error)}`);
    }
  };
  await play({
    describe: 'create PodSet web with 3 replicas',
    run: (c) => firstValueFrom(c.podSets.create(demoPodSet(3, 'web'))),
  });
  await play({
    describe: 'create PodSet api with 2 replicas',
    run: (c) => firstValueFrom(c.podSets.create(demoPodSet(2, 'api'))),
  });
  for (let at = 0; !signal.aborted; at = (at + 1) % dashboardSteps.length) {
    await pause(stepMs, signal);
    if (!signal.aborted) await play(dashboardSteps[at]!);
  }
}

function withoutImage(podSet: PodSet): PodSet {
  const template = podSet.spec!.template;
  return {
    ...podSet,
    spec: { ...podSet.spec!, template: { ...template, spec: { containers: [{ name: 'web', image: '' }] } } },
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
