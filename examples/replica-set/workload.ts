/**
 * The simulated workload `npm run example -- replica-set` plays on the embedded cluster: a PodSet of 3 is created,
 * scaled to 5, loses a Pod deleted by hand, is scaled to 1 and deleted; and a stand-in for the kubelet, which the
 * in-memory server does not have, marks each new Pod Running and Ready.
 * @module
 */
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import {
  catchError,
  delay,
  EMPTY,
  filter,
  firstValueFrom,
  fromEvent,
  mergeMap,
  takeUntil,
  type Observable,
} from 'rxjs';
import { apiErrors, informer, owners, resourceClient, type Connection } from '../../src/index.js';
import { messageOf } from '../shared/health.js';
import { POD, PODSET, PODSET_GROUP, type PodSet } from './podset.js';
import { rfc3339 } from './status.js';

/** The namespace the demo works in. */
export const DEMO_NAMESPACE = 'default';

/** The name of the demo's PodSet. */
export const DEMO_PODSET = 'web';

/** How long the stand-in kubelet takes to report a new Pod Running and Ready, ms. */
export const DEMO_READY_AFTER_MS = 300;

/** The demo PodSet: `replicas` copies of a web server Pod labelled `app=web`. */
export function demoPodSet(replicas: number, name = DEMO_PODSET): PodSet {
  return {
    apiVersion: PODSET.apiVersion,
    kind: PODSET.kind,
    metadata: { name, namespace: DEMO_NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1.0' }] },
      },
    },
  };
}

/**
 * A stand-in for the kubelet: every Pod controlled by a PodSet that is Pending and not being deleted is reported
 * `Running` with its `Ready` condition True, `readyAfterMs` after it appeared, through the Pod status
 * subresource (as the kubelet reports it). Stops when unsubscribed.
 *
 * # Guarantees
 * - Never errors: a Pod gone before its report is skipped, and any other failure is narrated.
 */
export function simulatedKubelet(
  connection: KubeConfig,
  narrate: (line: string) => void,
  readyAfterMs = DEMO_READY_AFTER_MS,
): Observable<unknown> {
  const pods = resourceClient<V1Pod>(connection, POD, { fieldManager: 'simulated-kubelet' });
  return informer<V1Pod>(connection, POD, { namespace: DEMO_NAMESPACE }).events$.pipe(
    filter((event) => event.type === 'added' && isPendingPodSetPod(event.object)),
    delay(readyAfterMs),
    mergeMap(({ object: pod }) => {
      const now = rfc3339(Date.now());
      return pods
        .patchStatus(pod, {
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
        })
        .pipe(
          mergeMap(() => {
            narrate(`kubelet: pod ${pod.metadata?.name} is Running and Ready`);
            return EMPTY;
          }),
          catchError((error: unknown) => {
            if (!apiErrors.isNotFound(error))
              narrate(`kubelet: could not report pod ${pod.metadata?.name}: ${messageOf(error)}`);
            return EMPTY;
          }),
        );
    }),
  );
}

function isPendingPodSetPod(pod: V1Pod): boolean {
  const owner = owners.controllerOf(pod);
  return (
    owner?.kind === PODSET.kind &&
    owner.apiVersion?.startsWith(`${PODSET_GROUP}/`) === true &&
    (pod.status?.phase ?? 'Pending') === 'Pending' &&
    pod.metadata?.deletionTimestamp == null
  );
}

/** One step of the demo. */
interface Step {
  readonly describe: string;
  readonly run: (clients: DemoClients) => Promise<unknown>;
  /** Resolves when the controller has done what the step asks (polled). */
  readonly until?: (podSet: PodSet | undefined, pods: readonly V1Pod[]) => boolean;
}

interface DemoClients {
  readonly podSets: ReturnType<typeof resourceClient<PodSet>>;
  readonly pods: ReturnType<typeof resourceClient<V1Pod>>;
}

const ownPods = (pods: readonly V1Pod[]): V1Pod[] =>
  pods.filter((pod) => owners.controllerOf(pod)?.name === DEMO_PODSET && pod.metadata?.deletionTimestamp == null);
const settledAt =
  (replicas: number) =>
  (podSet: PodSet | undefined, pods: readonly V1Pod[]): boolean =>
    podSet?.status?.readyReplicas === replicas &&
    podSet.status.replicas === replicas &&
    ownPods(pods).length === replicas;
const scale = (replicas: number) => (clients: DemoClients) =>
  firstValueFrom(clients.podSets.patch(DEMO_PODSET, { type: 'merge', body: { spec: { replicas } } }));

/** The demo script, in order. */
export const demoSteps: readonly Step[] = [
  {
    describe: `create PodSet ${DEMO_PODSET} with 3 replicas`,
    run: (c) => firstValueFrom(c.podSets.create(demoPodSet(3))),
    until: settledAt(3),
  },
  { describe: `scale PodSet ${DEMO_PODSET} to 5`, run: scale(5), until: settledAt(5) },
  {
    describe: `delete one of ${DEMO_PODSET}'s pods by hand (the controller replaces it)`,
    run: async (c) => {
      const [victim] = ownPods((await firstValueFrom(c.pods.list())).items);
      if (victim === undefined) throw new Error(`PodSet ${DEMO_PODSET} has no pod to delete`);
      return firstValueFrom(c.pods.delete(victim));
    },
    until: settledAt(5),
  },
  { describe: `scale PodSet ${DEMO_PODSET} to 1`, run: scale(1), until: settledAt(1) },
  {
    describe: `delete PodSet ${DEMO_PODSET} (the garbage collector deletes its pods)`,
    run: (c) => firstValueFrom(c.podSets.delete(DEMO_PODSET)),
    until: (podSet, pods) => podSet === undefined && ownPods(pods).length === 0,
  },
];

/**
 * Plays {@link demoSteps} against a cluster that has the PodSet CRD, with {@link simulatedKubelet} running until
 * `signal` is aborted. Each step waits (up to `stepTimeoutMs`) until the controller has done what it asks, then
 * pauses `pauseMs` so the output can be read. Resolves when the script is done; stops early, between steps, once
 * `signal` is aborted; rejects when a step fails or the controller does not get there in time.
 */
export async function runPodSetWorkload(
  kubeConfig: KubeConfig,
  narrate: (line: string) => void,
  signal: AbortSignal,
  { pauseMs = 500, stepTimeoutMs = 20_000 }: { readonly pauseMs?: number; readonly stepTimeoutMs?: number } = {},
): Promise<void> {
  simulatedKubelet(kubeConfig, narrate)
    .pipe(takeUntil(fromEvent(signal, 'abort')))
    .subscribe();
  const clients = demoClients(kubeConfig);
  for (const step of demoSteps) {
    if (signal.aborted) return;
    narrate(`workload: ${step.describe}`);
    await step.run(clients);
    if (step.until) await settle(clients, step.until, stepTimeoutMs, signal, step.describe);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

function demoClients(connection: Connection): DemoClients {
  return {
    podSets: resourceClient<PodSet>(connection, PODSET, { namespace: DEMO_NAMESPACE }),
    pods: resourceClient<V1Pod>(connection, POD, { namespace: DEMO_NAMESPACE }),
  };
}

async function settle(
  clients: DemoClients,
  until: NonNullable<Step['until']>,
  timeoutMs: number,
  signal: AbortSignal,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!signal.aborted) {
    const podSet = await firstValueFrom(clients.podSets.get(DEMO_PODSET)).catch((error: unknown) => {
      if (apiErrors.isNotFound(error)) return undefined;
      throw error;
    });
    const pods = (await firstValueFrom(clients.pods.list())).items;
    if (until(podSet, pods)) return;
    if (Date.now() > deadline) throw new Error(`the controller did not settle after "${what}" within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
