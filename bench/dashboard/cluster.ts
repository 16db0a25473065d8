/**
 * The dashboard benchmark's cluster, in a process of its own (so its CPU is not the dashboard's): the in-memory API
 * server with the PodSet CRD, PodSets whose Pods are Running and Ready, and a driver that changes Pods (an annotation,
 * as a kubelet's or a labeller's update would) at a given rate, written without HTTP (`cluster.update`), so that
 * the server's cost per change is the watch event it sends.
 *
 * Talks to its parent over IPC: sends `{ type: 'ready', kubeconfig }`; answers `{ type: 'rate', perSecond }` by
 * driving at that rate (0 stops), and `{ type: 'count' }` with `{ type: 'count', changes }`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { resourceClient } from '../../src/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { installPodSetCrd, PODSET, type PodSet } from '../../examples/replica-set/podset.js';
import { demoPodSet } from '../../examples/replica-set/workload.js';

const PODSETS = Number(process.env.BENCH_PODSETS ?? 50);
const PODS_PER_SET = Number(process.env.BENCH_PODS_PER_SET ?? 20);
const TICK_MS = 10;

const cluster = await startTestCluster({});
const dir = mkdtempSync(join(tmpdir(), 'rxkube-bench-dashboard-'));
const kubeconfig = join(dir, 'kubeconfig.yaml');
await cluster.writeKubeconfig(kubeconfig);
await installPodSetCrd(cluster.kubeConfig);

cluster.seed(Array.from({ length: PODSETS }, (_, i) => demoPodSet(PODS_PER_SET, `set-${i}`)));
const podSets = (
  await firstValueFrom(resourceClient<PodSet>(cluster.kubeConfig, PODSET, { namespace: 'default' }).list())
).items;
const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const pods: V1Pod[] = podSets.flatMap((podSet) =>
  Array.from(
    { length: PODS_PER_SET },
    (_, i): V1Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${podSet.metadata!.name}-${i}`,
        namespace: 'default',
        labels: { app: podSet.metadata!.name! },
        annotations: { 'bench.rxkube.io/tick': '0' },
        ownerReferences: [
          {
            apiVersion: PODSET.apiVersion,
            kind: PODSET.kind,
            name: podSet.metadata!.name!,
            uid: podSet.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1.0' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now as unknown as Date }],
      },
    }),
  ),
);
cluster.seed(pods as KubernetesObject[], { preserveStatus: true });

let perSecond = 0;
let changes = 0;
let tick = 0;
let owed = 0;
let last = performance.now();
setInterval(() => {
  const at = performance.now();
  owed += (perSecond * (at - last)) / 1000;
  last = at;
  const due = Math.floor(owed);
  if (due === 0) return;
  owed -= due;
  const batch: V1Pod[] = [];
  for (let i = 0; i < due; i++) {
    const pod = pods[tick % pods.length]!;
    tick += 1;
    pod.metadata!.annotations = { 'bench.rxkube.io/tick': String(tick) };
    batch.push(pod);
  }
  cluster.update(batch as KubernetesObject[]);
  changes += due;
}, TICK_MS);

process.on('message', (message: { type: string; perSecond?: number }) => {
  if (message.type === 'rate') {
    perSecond = message.perSecond ?? 0;
    owed = 0;
    last = performance.now();
  } else if (message.type === 'count') {
    process.send!({ type: 'count', changes });
  }
});
process.on('disconnect', () => {
  void cluster.stop().then(() => process.exit(0));
});
process.send!({ type: 'ready', kubeconfig, pods: pods.length, podSets: podSets.length });
