/**
 * One benchmark client in its own process (so heaps never mix): syncs every pod from the server, reports the time
 * and the heap it retains per object, then counts MODIFIED events in bursts on the parent's orders.
 *
 * Usage (by `informer.ts`, `continuous.ts` and `scale.ts`): `client.ts <mode> <serverUrl> <count> [pods|configmaps]`,
 * mode one of `floor`, `floor-strip`, `rxkube`, `rxkube-keep`, `client-node`; the resource defaults to pods.
 * Messages out: `{ type: 'synced', ms, cpuMs, heapBytes, peakRssBytes }` (peak RSS of the process so far),
 * `{ type: 'armed', gcBeforeMs }`, `{ type: 'burst-done', ms, cpuMs, gcMs }` (cpuMs: this process's user + system CPU
 * time; gcMs: main-thread GC pauses during the burst; gcBeforeMs: GC pauses since the previous burst ended, which no
 * timing includes),
 * `{ type: 'profiled', path }`. Messages in: `{ type: 'expect', count, profile? }` (with `profile`, a CPU profile of
 * the burst, and only of the burst, is written to that path), `{ type: 'stop' }`.
 */
import { writeFileSync } from 'node:fs';
import { GCProfiler } from 'node:v8';
import { Session } from 'node:inspector/promises';
import { CoreV1Api, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import { firstValueFrom, filter, Subscription } from 'rxjs';
import { informer } from '../../src/informer/index.js';
import { floorClient } from './floor.js';

type Mode = 'floor' | 'floor-strip' | 'rxkube' | 'rxkube-keep' | 'client-node';
const [mode, url, countArg, resourceArg = 'pods'] = process.argv.slice(2) as [
  Mode,
  string,
  string,
  'pods' | 'configmaps',
];
const total = Number(countArg);
const resource =
  resourceArg === 'configmaps'
    ? {
        kind: 'ConfigMap',
        path: '/api/v1/configmaps',
        list: (api: CoreV1Api, page: { limit: number; _continue?: string }) => api.listConfigMapForAllNamespaces(page),
      }
    : {
        kind: 'Pod',
        path: '/api/v1/pods',
        list: (api: CoreV1Api, page: { limit: number; _continue?: string }) => api.listPodForAllNamespaces(page),
      };
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('client.ts needs --expose-gc');

/** CPU time (user + system) this process spent since `since`, in ms: the client's own work, whatever the server's pace. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function collect(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed;
}

const kubeConfig = new KubeConfig();
kubeConfig.loadFromOptions({
  clusters: [{ name: 'bench', server: url, skipTLSVerify: true }],
  users: [{ name: 'bench' }],
  contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
  currentContext: 'bench',
});

/** The CPU profiler of a profiled burst: started before `armed`, stopped at the burst's last event. */
let profiler: { session: Session; path: string } | undefined;

async function startProfile(path: string): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  profiler = { session, path };
}

async function stopProfile(): Promise<void> {
  if (profiler === undefined) return;
  const { session, path } = profiler;
  profiler = undefined;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  writeFileSync(path, JSON.stringify(profile));
  process.send!({ type: 'profiled', path });
}

/**
 * Main-thread GC time (scavenges and the pauses of mark-compact; not the helper threads), in ms, since the last
 * call: V8's GC profiler records every collection synchronously, so a burst is charged exactly its own.
 */
let gcProfiler = new GCProfiler();
gcProfiler.start();
function gcSinceLast(): number {
  const { statistics } = gcProfiler.stop();
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  return statistics.reduce((sum, gc) => sum + gc.cost, 0) / 1000;
}

/** Counts events; `arm(n)` starts a burst measurement that ends at the n-th event after it. */
const counter = {
  expected: 0,
  seen: 0,
  firstAt: 0,
  cpuAtArm: process.cpuUsage(),
  /** Starts a burst; returns the GC time since the previous one ended. */
  arm(count: number): number {
    this.expected = count;
    this.seen = 0;
    this.cpuAtArm = process.cpuUsage();
    return gcSinceLast();
  },
  tick(): void {
    if (this.expected === 0) return;
    if (this.seen === 0) this.firstAt = performance.now();
    this.seen += 1;
    if (this.seen === this.expected) {
      this.expected = 0;
      process.send!({
        type: 'burst-done',
        ms: performance.now() - this.firstAt,
        cpuMs: cpuMs(this.cpuAtArm),
        gcMs: gcSinceLast(),
      });
      void stopProfile();
    }
  },
};

/**
 * Starts the client; resolves once its cache holds the initial list. `retained` is what keeps the cache reachable:
 * it stays referenced from the module scope below, so the heap measured after sync includes the whole cache.
 */
async function start(): Promise<{ retained: unknown; stop: () => void }> {
  switch (mode) {
    case 'floor':
    case 'floor-strip': {
      const floor = floorClient(url, {
        stripManagedFields: mode === 'floor-strip',
        onModified: () => counter.tick(),
        path: resource.path,
      });
      await floor.synced;
      return { retained: floor, stop: () => floor.stop() };
    }
    case 'rxkube':
    case 'rxkube-keep': {
      const pods = informer<KubernetesObject>(
        kubeConfig,
        { apiVersion: 'v1', kind: resource.kind },
        { keepManagedFields: mode === 'rxkube-keep' },
      );
      const subscription = new Subscription();
      subscription.add(
        pods.events$.subscribe((event) => {
          if (event.type === 'updated') counter.tick();
        }),
      );
      // Subscribed like a controller's cache reader would be: every published snapshot is delivered.
      let snapshots = 0;
      subscription.add(pods.store$.subscribe(() => void (snapshots += 1)));
      // Anything but a healthy watch after sync (a reconnect, a backoff) would distort the timings: say so.
      let synced = false;
      subscription.add(
        pods.status$.subscribe((status) => {
          if (synced && status.state !== 'watching') console.error(`rxkube client: status ${JSON.stringify(status)}`);
        }),
      );
      subscription.add(
        pods.problems$.subscribe((problem) =>
          console.error(`rxkube client: problem ${problem.reason}: ${problem.message}`),
        ),
      );
      await firstValueFrom(pods.synced$.pipe(filter(Boolean)));
      synced = true;
      return { retained: pods, stop: () => subscription.unsubscribe() };
    }
    case 'client-node': {
      const api = kubeConfig.makeApiClient(CoreV1Api);
      // Paginated like the other two (client-node itself would list everything in one response).
      const listAll = async () => {
        const items: KubernetesObject[] = [];
        let token: string | undefined;
        let resourceVersion: string | undefined;
        do {
          const page = await resource.list(api, { limit: 500, ...(token ? { _continue: token } : {}) });
          for (const item of page.items) items.push(item);
          token = page.metadata?._continue;
          resourceVersion = page.metadata?.resourceVersion;
        } while (token);
        return { metadata: { resourceVersion }, items };
      };
      const pods = makeInformer<KubernetesObject>(kubeConfig, resource.path, listAll);
      pods.on('update', () => counter.tick());
      await pods.start();
      return { retained: pods, stop: () => void pods.stop() };
    }
  }
}

const baseline = collect();
const cpuAtStart = process.cpuUsage();
const startedAt = performance.now();
const running = await start();
const syncMs = performance.now() - startedAt;
const syncCpuMs = cpuMs(cpuAtStart);
const heapBytes = (collect() - baseline) / total;
// maxRSS is in KiB: the peak resident set of the process so far, i.e. during the list.
process.send!({
  type: 'synced',
  ms: syncMs,
  cpuMs: syncCpuMs,
  heapBytes,
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
});
gcSinceLast();

process.on('message', (message: { type: string; count?: number; profile?: string }) => {
  if (message.type === 'expect') {
    const arm = (): void => {
      const gcBeforeMs = counter.arm(message.count!);
      process.send!({ type: 'armed', gcBeforeMs });
    };
    if (message.profile === undefined) arm();
    else void startProfile(message.profile).then(arm);
  } else if (message.type === 'stop') {
    running.stop();
    process.exit(0);
  }
});
