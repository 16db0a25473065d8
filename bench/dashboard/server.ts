/**
 * The dashboard benchmark's measured process: the cluster-dashboard example's manager (the PodSet controller,
 * observed, and the dashboard) against the benchmark's cluster, and nothing else. Its CPU is what the figures are.
 *
 * Talks to its parent over IPC: sends `{ type: 'ready', url }` once the page is served and the caches synced;
 * answers `{ type: 'sample' }` with its CPU time, its heap and buffers after a full collection, the Pod events its informer
 * saw, and the server's per-connection counters.
 */
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { filter, firstValueFrom, takeUntil, tap, type Observable } from 'rxjs';
import { manager, silentLogger, type ControllerDefinition, type ReconcileEvent } from '../../src/index.js';
import { clusterDashboard } from '../../examples/cluster-dashboard/dashboard.js';
import { POD } from '../../examples/replica-set/podset.js';
import { replicaSetController } from '../../examples/replica-set/replica-set.js';

const [kubeconfig, interval] = process.argv.slice(2);
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig!);
const gc = (globalThis as { gc?: () => void }).gc;

let podEvents = 0;
/** Counts the Pod events the shared informer delivers: the rate the dashboard actually sees. */
const counter: ControllerDefinition = {
  name: 'event-counter',
  needLeaderElection: false,
  start: (context) =>
    context.informers.for<V1Pod>(POD).events$.pipe(
      tap(() => {
        podEvents += 1;
      }),
      filter(() => false),
      takeUntil(context.stop$),
    ) as Observable<never> as Observable<ReconcileEvent>,
};

const dashboard = clusterDashboard({
  title: 'bench',
  port: 0,
  maxClients: 10_000,
  lease: false,
  print: () => {},
  ...(interval === undefined ? {} : { updateIntervalMs: Number(interval) }),
});
let synced!: () => void;
const cachesSynced = new Promise<void>((resolve) => {
  synced = resolve;
});
const running = manager({
  connection: kubeConfig,
  name: 'bench-dashboard',
  controllers: [dashboard.observe(replicaSetController({ print: () => {} })), dashboard.controller, counter],
  metrics: false,
  health: false,
  logger: silentLogger(),
  signals: false,
  events: false,
}).subscribe((event) => {
  if (event.type === 'synced') synced();
});
await cachesSynced;
const server = await firstValueFrom(dashboard.server$);

process.on('message', (message: { type: string }) => {
  if (message.type !== 'sample') return;
  gc?.();
  const { heapUsed, external } = process.memoryUsage();
  process.send!({
    type: 'sample',
    cpu: process.cpuUsage(),
    memory: heapUsed + external,
    podEvents,
    stats: server.stats(),
  });
});
process.on('disconnect', () => {
  running.unsubscribe();
  process.exit(0);
});
process.send!({ type: 'ready', url: server.url });
