/**
 * The soak: the PodSet controller (two replicas under the manager, leader election) against a real kube-apiserver
 * and etcd, a writer process pair churning PodSets and incrementing counters, drawn faults, and checks at each
 * checkpoint. `runSoak` is what `npm run soak` and the e2e spec run.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { firstValueFrom, filter } from 'rxjs';
import { informer, resourceClient } from '../src/index.js';
import type { ControlPlane } from '../src/testing/index.js';
import { startTcpProxy, type TcpProxy } from '../src/testing/index.js';
import { writeKubeConfigFile } from '../src/testing/kubeconfig.js';
import { installPodSetCrd, POD, PODSET, type PodSet } from '../examples/replica-set/podset.js';
import { podSet } from '../examples/replica-set/scenarios.js';
import {
  addTallies,
  cacheDrift,
  heapAfterCollections,
  heapTroughs,
  heapTrend,
  lostUpdates,
  overlappingRuns,
  unconverged,
  type CounterTally,
  type HeapSample,
  type HeapTrend,
} from './checks.js';
import { cacheDigest } from '../examples/shared/cache-digest.js';
import { cacheDigests, heapUsed, startReplica, stopReplica, type LeaseTimings, type Replica } from './replicas.js';
import { COUNTER_ANNOTATION, seeded, type FromWriter, type KindTimes, type WriterConfig } from './writer.js';

/** The faults the soak draws. */
export const DRAWN_FAULTS = [
  'apiserver-kill',
  'etcd-compaction',
  'partition',
  'connection-reset',
  'leader-kill',
] as const;
/**
 * Every fault the report counts: the drawn ones, and `watch-timeout`, the replicas' watches that kube-apiserver
 * ended on its own `--min-request-timeout` (counted from the replicas' logs, not drawn).
 */
export const FAULTS = [...DRAWN_FAULTS, 'watch-timeout'] as const;
export type Fault = (typeof FAULTS)[number];
type DrawnFault = (typeof DRAWN_FAULTS)[number];

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Writer events in all (creates, updates, deletes, counter increments). */
  readonly events: number;
  /** PodSets the writers churn. */
  readonly objects: number;
  /** Faults per minute. */
  readonly faultRate: number;
  /** Stop after this long even if events remain, ms. */
  readonly durationMs: number;
  /** Checkpoints, evenly spread over the events (the last one after the writers finish). */
  readonly checkpoints: number;
  /** Writes in flight per writer process (never two on one PodSet; the counters race across the two writers). */
  readonly writeConcurrency: number;
  /**
   * The controller's expectations timeout, ms: a PodSet whose Pod events were lost in a fault converges after at
   * most this (plus a sync), so the checkpoints' convergence bound follows from it.
   */
  readonly expectationsTimeoutMs: number;
  /**
   * PodSets each replica syncs at once. kube-controller-manager's 5 falls behind 48 writes in flight per writer when
   * each API call takes the better part of a second (a loaded machine).
   */
  readonly controllerWorkers: number;
  /** kube-apiserver's `--min-request-timeout`, s: it ends each watch of the replicas after [min, 2 × min] s. */
  readonly minRequestTimeoutS: number;
  /** How long a partition lasts, ms (longer than the lease's renew deadline, so that leadership moves). */
  readonly partitionMs: number;
  readonly seed: number;
  /**
   * Keep the replicas' logs (each one's stderr and stdout, `<identity>.log` in a temporary directory) when the run
   * is clean too. They are always kept when a checkpoint is not clean or the run fails, and the line that says so
   * names the directory.
   */
  readonly keepLogs?: boolean | undefined;
  /** Where progress lines go. */
  readonly log: (line: string) => void;
}

/** The defaults of the full soak (issue 33): a million events over 100,000 objects in about 30 minutes. */
export const FULL_SOAK: Omit<SoakOptions, 'log'> = {
  events: 1_000_000,
  objects: 100_000,
  faultRate: 1,
  durationMs: 40 * 60_000,
  checkpoints: 10,
  writeConcurrency: 32,
  expectationsTimeoutMs: 15_000,
  controllerWorkers: 16,
  minRequestTimeoutS: 60,
  partitionMs: 12_000,
  seed: 33,
};

/** The control plane options the soak needs: kube-apiserver ends watches after `minRequestTimeoutS`. */
export function soakControlPlaneOptions(options: Pick<SoakOptions, 'minRequestTimeoutS'>): {
  readonly apiServerArgs: readonly string[];
  readonly startTimeoutMs: number;
} {
  return { apiServerArgs: [`--min-request-timeout=${options.minRequestTimeoutS}`], startTimeoutMs: RESTART_BOUND_MS };
}

/**
 * Restarts kube-apiserver, trying again after a start that missed its readiness bound (see RESTART_BOUND_MS), and
 * rejects after `attempts` failures: a control plane left without kube-apiserver cannot go on, so the soak ends.
 */
export async function restartApiServer(
  controlPlane: Pick<ControlPlane, 'restartApiServer'>,
  log: (line: string) => void,
  attempts = 3,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await controlPlane.restartApiServer();
      return;
    } catch (error) {
      if (attempt >= attempts)
        throw new Error(`kube-apiserver did not come back after ${attempt} restarts: ${firstLine(error)}`);
      log(`kube-apiserver restart ${attempt} failed, trying again: ${firstLine(error)}`);
    }
  }
}

/** The first line of an error's text: launcher errors carry a log tail after it. */
function firstLine(error: unknown): string {
  return String(error).split('\n')[0]!;
}

/**
 * How long a kube-apiserver start or restart may take to be ready. The launcher's default, 60 s, is too short under
 * the soak: with 100,000 objects in etcd and the writers' requests arriving as soon as it listens, kube-apiserver's
 * post-start hooks (rbac/bootstrap-roles) took longer than that on a loaded machine, and each restart killed the one
 * before it just short of ready, so it never came back.
 */
const RESTART_BOUND_MS = 240_000;

/**
 * How long a checkpoint waits for convergence without progress, ms: the expectations timeout (a PodSet whose Pod
 * events were lost waits that long), plus a margin for a replacement replica to start and take the Lease, and for
 * read-your-own-writes' 5 s. While the controller works off a backlog (fewer PodSets unconverged or drifting at
 * each look), the wait goes on, up to {@link checkpointCapMs}.
 */
export function convergenceBoundMs(options: Pick<SoakOptions, 'expectationsTimeoutMs'>): number {
  return options.expectationsTimeoutMs + CONVERGENCE_MARGIN_MS;
}

/** The longest a checkpoint waits, progress or not, ms: four times {@link convergenceBoundMs}. */
export function checkpointCapMs(options: Pick<SoakOptions, 'expectationsTimeoutMs'>): number {
  return 4 * convergenceBoundMs(options);
}

/** What one checkpoint found. */
export interface Checkpoint {
  readonly at: number;
  readonly events: number;
  readonly podSets: number;
  readonly pods: number;
  readonly cacheDrift: string[];
  /** Each live replica's caches (PodSets and Pods) against the server, by digest: the ones that differ. */
  readonly replicaCacheDrift: string[];
  readonly unconverged: string[];
  readonly lostUpdates: string[];
  readonly overlaps: string[];
  /** Milliseconds from the writers' pause to convergence. */
  readonly convergedInMs: number;
}

/** The outcome of a soak. */
export interface SoakReport {
  readonly options: Omit<SoakOptions, 'log'>;
  readonly events: number;
  readonly failedEvents: number;
  readonly faults: Record<Fault, number>;
  readonly checkpoints: Checkpoint[];
  readonly counters: { readonly succeeded: number; readonly unknown: number; readonly value: number };
  readonly reconciles: number;
  /** The writers' rate: events over the time they were writing (checkpoints left out), per second. */
  readonly eventsPerSecond: number;
  /** Mean duration of each kind of write, ms. */
  readonly writeLatencyMs: Record<string, number>;
  readonly heap: HeapTrend | undefined;
  /** The heap readings of the replica that lived longest, after its warm-up (one process: a successor starts afresh). */
  readonly heapSamples: HeapSample[];
  /**
   * How many heap readings came in, from every replica, warm-ups included: whether the sampler worked at all. A run
   * whose faults replace every replica within its warm-up has readings but no `heapSamples`.
   */
  readonly heapReadings: number;
  /**
   * The readings the trend is fitted to: the lowest of each full-collection cycle, or, when the replica does not
   * count its collections, of each 20 s window.
   */
  readonly heapTroughs: HeapSample[];
  readonly durationMs: number;
  /** True when every checkpoint is clean, the heap is flat and every fault happened. */
  readonly passed: boolean;
}

/**
 * kube-controller-manager's Lease timings: with 6 s / 4 s / 1 s, requests that take seconds on a loaded machine
 * had leaders miss their renew deadline and exit every half minute, without any fault.
 */
const LEASE: LeaseTimings = { leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 };
const COUNTERS = ['counter-0', 'counter-1', 'counter-2', 'counter-3'];
const WRITE_TIMEOUT_MS = 10_000;
const HEAP_WARM_UP_MS = 30_000;
const CONVERGENCE_MARGIN_MS = 60_000;
/** Without collection counts, the heap trend is fitted to the lowest reading of each such window. */
const HEAP_WINDOW_MS = 20_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `work`, waited for at most `ms`; the guard's timer is cleared either way, so it keeps nothing alive. */
async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The replicas whose caches (by digest, kind by kind) differ from what the server serves, and how. */
async function replicaDrift(
  live: readonly Replica[],
  served: ReadonlyMap<string, { readonly objects: number; readonly digest: number }>,
): Promise<string[]> {
  const drift: string[] = [];
  for (const replica of live) {
    const digests = await cacheDigests(replica);
    if (digests === undefined) {
      drift.push(`${replica.identity}: no cache digest yet`);
      continue;
    }
    for (const [kind, want] of served) {
      const got = digests.get(kind);
      if (got?.objects === want.objects && got.digest === want.digest) continue;
      drift.push(
        `${replica.identity} ${kind}: ${got?.objects ?? 'no'} cached, ${want.objects} served` +
          (got?.objects === want.objects ? ', resourceVersions differ' : ''),
      );
    }
  }
  return drift;
}

/** Runs the soak on `controlPlane` (its kube-apiserver is killed and restarted, etcd compacted) and reports. */
export async function runSoak(controlPlane: ControlPlane, options: SoakOptions): Promise<SoakReport> {
  const { log, ...settings } = options;
  const started = Date.now();
  const random = seeded(options.seed);
  const namespace = `soak-${started.toString(36)}`;
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-soak-'));
  const logDir = mkdtempSync(join(tmpdir(), 'rxkube-soak-logs-'));
  let keepLogs = options.keepLogs === true;
  const kc = controlPlane.kubeConfig;
  const apiPort = Number(new URL(controlPlane.url).port);
  const proxies: TcpProxy[] = [];
  const replicas: Replica[] = [];
  const writers: ChildProcess[] = [];
  const faults = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
  const checkpoints: Checkpoint[] = [];
  /** Heap readings of each replica; the trend is fitted to the one that lived longest, after its warm-up. */
  const heapByReplica = new Map<string, HeapSample[]>();
  const tallies = new Map<string, CounterTally>();
  let stopHeap = false;
  let stopFaults = false;
  let faultsHeld = false;
  /** Set once the soak ends: exited replicas are no longer replaced. */
  let closing = false;
  let replicaCount = 0;
  let watching: { unsubscribe(): void } | undefined;
  let faultLoop: Promise<void> = Promise.resolve();
  let heapLoop: Promise<void> = Promise.resolve();

  const kubeconfigFile = async (config: KubeConfig, name: string): Promise<string> => {
    const path = join(dir, name);
    await writeKubeConfigFile(config, path);
    return path;
  };
  try {
    const namespaces = resourceClient(kc, { apiVersion: 'v1', kind: 'Namespace' });
    await firstValueFrom(namespaces.create({ metadata: { name: namespace } }));
    await installPodSetCrd(kc);
    const podSets = resourceClient<PodSet>(kc, PODSET, { namespace, fieldManager: 'soak' });
    const pods = resourceClient<V1Pod>(kc, POD, { namespace });
    for (const name of COUNTERS) await firstValueFrom(podSets.create(podSet(name, 0)));

    // Each replica reaches kube-apiserver through a proxy of its own: the partition and reset faults act there.
    const launch = async (): Promise<void> => {
      const proxy = await startTcpProxy({ targetPort: apiPort });
      proxies.push(proxy);
      if (closing) return;
      const identity = `replica-${++replicaCount}`;
      const file = await kubeconfigFile(proxy.routeThrough(kc), `${identity}.kubeconfig`);
      const replica = startReplica(identity, file, namespace, {
        lease: LEASE,
        expectationsTimeoutMs: options.expectationsTimeoutMs,
        workers: options.controllerWorkers,
        logFile: join(logDir, `${identity}.log`),
      });
      (replica as { proxy?: TcpProxy }).proxy = proxy;
      replicas.push(replica);
      // A supervisor, as a Deployment's: a replica that exits (killed, or ending itself on a lost Lease, as the
      // manager does by default) is replaced, so two replicas run until the soak ends.
      void replica.exit.then(async () => {
        const { exitCode, signalCode } = replica.child;
        const why = exitCode !== 0 && signalCode === null ? `; last warnings: ${replica.lastWarnings.join(' | ')}` : '';
        log(`${identity} exited (${signalCode ?? `code ${exitCode}`}${why})`);
        await proxy.close();
        if (!closing) await launch();
      });
    };
    const proxyOf = (replica: Replica): TcpProxy => (replica as unknown as { proxy: TcpProxy }).proxy;
    await launch();
    await launch();

    // The checker's own informer, on a direct link.
    const watched = informer<PodSet>(kc, PODSET, { namespace });
    watching = watched.events$.subscribe();
    await firstValueFrom(watched.synced$.pipe(filter(Boolean)));

    const writerFile = await kubeconfigFile(kc, 'writer.kubeconfig');
    const perWriter = Math.ceil(options.events / 2);
    for (let index = 0; index < 2; index++) {
      const config: WriterConfig = {
        kubeconfig: writerFile,
        namespace,
        index,
        writers: 2,
        objects: options.objects,
        events: perWriter,
        counters: COUNTERS,
        counterShare: 0.2,
        concurrency: options.writeConcurrency,
        seed: options.seed * 7 + index,
        writeTimeoutMs: WRITE_TIMEOUT_MS,
      };
      const child = fork('soak/writer.ts', [JSON.stringify(config)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      writers.push(child);
      child.once('exit', (code, signal) => log(`writer ${index} exited (${signal ?? `code ${code}`})`));
    }
    // The last report of each writer (`paused` at a checkpoint, `done` at its end): its events and tallies so far.
    const latest = new Map<ChildProcess, Extract<FromWriter, { type: 'paused' | 'done' }>>();
    const progressOf = new Map<ChildProcess, Extract<FromWriter, { type: 'progress' }>>();
    const answered = (child: ChildProcess, wanted: (m: FromWriter) => boolean): Promise<void> =>
      new Promise((resolve) => {
        const onMessage = (message: FromWriter): void => {
          if (!wanted(message)) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve();
        };
        const onExit = (): void => {
          child.off('message', onMessage);
          resolve();
        };
        child.on('message', onMessage);
        child.once('exit', onExit);
      });
    let writingStarted = Date.now();
    let lastProgress = { at: writingStarted, events: 0, reconciles: 0 };
    const reconciled = (): number => replicas.reduce((a, r) => a + r.spans.length, 0);
    // The writers' clock starts when both are connected and writing (their modules loaded).
    void Promise.all(writers.map((child) => answered(child, (m) => m.type === 'started'))).then(() => {
      writingStarted = Date.now();
      lastProgress = { at: writingStarted, events: 0, reconciles: reconciled() };
    });
    const logProgress = (): void => {
      const events = [...progressOf.values()].reduce((a, p) => a + p.events, 0);
      const now = Date.now();
      if (now - lastProgress.at < 10_000) return;
      const seconds = (now - lastProgress.at) / 1000;
      const reconciles = reconciled();
      log(
        `writers: ${events} events, ${((events - lastProgress.events) / seconds).toFixed(1)}/s; replicas: ` +
          `${((reconciles - lastProgress.reconciles) / seconds).toFixed(1)} reconciles/s (over ${Math.round(seconds)} s)`,
      );
      lastProgress = { at: now, events, reconciles };
    };
    for (const child of writers) {
      child.on('message', (message: FromWriter) => {
        if (message.type === 'progress') progressOf.set(child, message);
        else if (message.type !== 'started') latest.set(child, message);
      });
    }
    const done = (child: ChildProcess): boolean =>
      latest.get(child)?.type === 'done' || child.exitCode !== null || child.signalCode !== null;
    /** Pauses every writer that is still writing; resolves once each has answered (or ended). */
    const pauseWriters = async (): Promise<void> => {
      await Promise.all(
        writers.map((child) => {
          if (done(child) || !child.connected) return undefined;
          const reply = answered(child, (m) => m.type === 'paused' || m.type === 'done');
          child.send({ type: 'pause' });
          return reply;
        }),
      );
    };
    const finalReports = writers.map((child) => answered(child, (m) => m.type === 'done'));

    // Heap readings of the replicas every 2 s (the leader's, and its follower's).
    heapLoop = (async () => {
      while (!stopHeap) {
        for (const replica of replicas) {
          if (replica.exited) continue;
          const sample = await heapUsed(replica);
          if (sample === undefined) continue;
          const series = heapByReplica.get(replica.identity) ?? [];
          series.push(sample);
          heapByReplica.set(replica.identity, series);
        }
        await sleep(2_000);
      }
    })();

    const leader = (): Replica | undefined => replicas.find((r) => r.leading && !r.exited);
    /** A fault the soak cannot go on after (kube-apiserver gone for good): the run ends with it, as a failure. */
    let fatal: Error | undefined;
    /**
     * The leader, waited for up to three lease durations: right after a takeover (a partition ends one), no replica
     * leads yet, and a fault drawn then would find no target and not happen.
     */
    const awaitLeader = async (): Promise<Replica | undefined> => {
      const until = Date.now() + 3 * LEASE.leaseDuration;
      while (leader() === undefined && Date.now() < until && fatal === undefined) await sleep(500);
      return leader();
    };
    const inject = async (fault: DrawnFault): Promise<void> => {
      log(`fault: ${fault}`);
      if (fault === 'apiserver-kill') {
        const pid = controlPlane.pids().apiServer;
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
        try {
          await restartApiServer(controlPlane, log);
        } catch (error) {
          fatal ??= error instanceof Error ? error : new Error(String(error));
          throw fatal;
        }
      } else if (fault === 'etcd-compaction') {
        await controlPlane.compactEtcd();
      } else if (fault === 'partition') {
        const target = (await awaitLeader()) ?? replicas.find((r) => !r.exited);
        if (target === undefined) return log(`fault skipped: ${fault} (no replica running)`);
        const proxy = proxyOf(target);
        proxy.stall('all');
        await sleep(options.partitionMs);
        proxy.pass();
      } else if (fault === 'connection-reset') {
        const target = (await awaitLeader()) ?? replicas.find((r) => !r.exited);
        if (target === undefined) return log(`fault skipped: ${fault} (no replica running)`);
        proxyOf(target).reset('open');
      } else {
        const target = await awaitLeader();
        if (target === undefined)
          return log(`fault skipped: ${fault} (no replica led within ${(3 * LEASE.leaseDuration) / 1000} s)`);
        target.child.kill('SIGKILL');
        await target.exit;
      }
      faults[fault]++;
    };
    const drawFault = (): DrawnFault => {
      // Uniform among the faults drawn least so far, so that a short run still sees every one.
      const least = Math.min(...DRAWN_FAULTS.map((f) => faults[f]));
      const candidates = DRAWN_FAULTS.filter((f) => faults[f] === least);
      return candidates[Math.floor(random() * candidates.length)]!;
    };
    let faultBusy: Promise<void> = Promise.resolve();
    faultLoop = (async () => {
      const gap = 60_000 / options.faultRate;
      const first = Date.now() + gap / 2;
      while (!stopFaults && Date.now() < first) await sleep(Math.min(1_000, first - Date.now()));
      while (!stopFaults) {
        if (!faultsHeld) {
          faultBusy = inject(drawFault()).catch((error: unknown) => log(`fault failed: ${String(error)}`));
          await faultBusy;
        }
        const until = Date.now() + gap * (0.5 + random());
        while (!stopFaults && Date.now() < until) await sleep(Math.min(1_000, until - Date.now()));
      }
    })();

    /** `read()`, tried again every second while kube-apiserver is still coming back from a fault. */
    const settled = async <T>(read: () => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await read();
        } catch (error) {
          if (attempt >= 60) throw error;
          await sleep(1_000);
        }
      }
    };
    const checkpoint = async (events: number): Promise<void> => {
      faultsHeld = true;
      await faultBusy;
      const pausedAt = Date.now();
      // Converged: every PodSet has its Pods and its status, and the checker's cache has caught up with the server.
      let result: Omit<Checkpoint, 'convergedInMs' | 'at' | 'events' | 'overlaps' | 'lostUpdates'> | undefined;
      // A Pod created and deleted while the controller's watch was down is never seen, so its creation stays expected
      // until the controller's expectations time out (the soak runs it with a short one): the bound to wait without
      // progress. A backlog being worked off is progress, up to the cap.
      const cap = Date.now() + checkpointCapMs(options);
      let deadline = Date.now() + convergenceBoundMs(options);
      let fewest = Number.POSITIVE_INFINITY;
      for (;;) {
        const served = (await settled(() => firstValueFrom(podSets.list()))).items;
        const allPods = (await settled(() => firstValueFrom(pods.list()))).items;
        const servedPods = allPods.filter((p) => p.metadata?.deletionTimestamp === undefined);
        const versioned = (o: PodSet | V1Pod) => ({
          key: `${namespace}/${o.metadata!.name}`,
          resourceVersion: o.metadata!.resourceVersion!,
        });
        const replicaCacheDrift = await replicaDrift(
          replicas.filter((r) => !r.exited),
          new Map([
            ['PodSet', cacheDigest(served.map(versioned))],
            ['Pod', cacheDigest(allPods.map(versioned))],
          ]),
        );
        const owned = new Map<string, number>();
        for (const pod of servedPods) {
          const owner = pod.metadata?.ownerReferences?.find((o) => o.controller === true)?.uid;
          if (owner !== undefined) owned.set(owner, (owned.get(owner) ?? 0) + 1);
        }
        const states = served.map((p) => ({
          name: p.metadata!.name!,
          desired: p.spec?.replicas ?? 1,
          statusReplicas: p.status?.replicas,
          ownedPods: owned.get(p.metadata!.uid!) ?? 0,
        }));
        const cache = [...watched.current().entries()].map(([key, o]) => ({
          key,
          resourceVersion: o.metadata!.resourceVersion!,
        }));
        result = {
          podSets: served.length,
          pods: servedPods.length,
          cacheDrift: cacheDrift(cache, served.map(versioned)),
          replicaCacheDrift,
          unconverged: unconverged(states),
        };
        const clean = result.cacheDrift.length + result.replicaCacheDrift.length + result.unconverged.length === 0;
        if (clean || Date.now() > Math.min(deadline, cap)) break;
        const left = result.cacheDrift.length + result.replicaCacheDrift.length + result.unconverged.length;
        if (left < fewest) {
          fewest = left;
          deadline = Date.now() + convergenceBoundMs(options);
        }
        await sleep(1_000);
      }
      const counters = new Map(
        (await settled(() => firstValueFrom(podSets.list()))).items
          .filter((p) => COUNTERS.includes(p.metadata!.name!))
          .map((p) => [p.metadata!.name!, Number(p.metadata?.annotations?.[COUNTER_ANNOTATION] ?? '0')]),
      );
      const found: Checkpoint = {
        at: Date.now() - started,
        events,
        ...result,
        lostUpdates: lostUpdates(counters, tallies),
        overlaps: overlappingRuns(replicas.flatMap((r) => r.spans)),
        convergedInMs: Date.now() - pausedAt,
      };
      checkpoints.push(found);
      faultsHeld = false;
      const unclean =
        found.cacheDrift.length + found.replicaCacheDrift.length + found.unconverged.length + found.overlaps.length >
          0 || found.lostUpdates.length > 0;
      if (unclean) {
        keepLogs = true;
        const what = [...found.unconverged, ...found.cacheDrift, ...found.replicaCacheDrift].slice(0, 5).join('; ');
        log(`checkpoint ${checkpoints.length} is not clean (${what}); the replicas' logs are in ${logDir}`);
      }
      log(
        `checkpoint ${checkpoints.length}: ${events} events, ${found.podSets} PodSets, ${found.pods} Pods, ` +
          `drift ${found.cacheDrift.length}, replica drift ${found.replicaCacheDrift.length}, unconverged ${found.unconverged.length}, lost ${found.lostUpdates.length}, ` +
          `overlaps ${found.overlaps.length}, converged in ${found.convergedInMs} ms`,
      );
    };

    // Checkpoints: pause both writers (tallies as of the pause), stop faults in between, check, resume.
    let totalEvents = 0;
    let failedEvents = 0;
    const every = options.events / options.checkpoints;
    let next = every;
    let lastEvents = 0;
    const runEnd = started + options.durationMs;
    let checkpointMs = 0;
    const progressed = (): number => [...progressOf.values()].reduce((a, p) => a + p.events, 0);
    for (;;) {
      // The writers are paused only for a checkpoint: their progress reports say when one is due.
      await sleep(1_000);
      if (fatal !== undefined) throw fatal;
      logProgress();
      if (progressed() < next && !writers.every(done) && Date.now() <= runEnd) continue;
      await pauseWriters();
      const reports = [...latest.values()];
      const events = reports.reduce((a, r) => a + r.events, 0);
      const finished = writers.every(done);
      const overtime = Date.now() > runEnd;
      let injectedLate = false;
      if (finished || overtime) {
        // A short run may end before every fault was drawn: those still missing happen before the last checkpoint.
        for (const fault of DRAWN_FAULTS)
          if (faults[fault] === 0) {
            faultsHeld = true;
            await faultBusy;
            await inject(fault).catch((error: unknown) => log(`fault failed: ${String(error)}`));
            injectedLate = true;
          }
        // kube-apiserver gone for good after a late kill: no checkpoint can read the server.
        if (fatal !== undefined) throw fatal;
      }
      if (events > lastEvents || injectedLate) {
        tallies.clear();
        for (const r of reports) addTallies(tallies, r.tallies);
        const checkpointStart = Date.now();
        await checkpoint(events);
        checkpointMs += Date.now() - checkpointStart;
        lastEvents = events;
        totalEvents = events;
        failedEvents = reports.reduce((a, r) => a + r.failed, 0);
        while (next <= events) next += every;
      }
      if (finished || overtime) break;
      for (const child of writers) if (!done(child) && child.connected) child.send({ type: 'resume' });
    }
    const writingMs = Date.now() - writingStarted - checkpointMs;
    log(
      `writers: ${totalEvents} events in ${(writingMs / 1000).toFixed(1)} s of writing: ${((totalEvents * 1000) / writingMs).toFixed(1)} events/s`,
    );
    for (const child of writers) if (child.connected) child.send({ type: 'stop' });
    await atMost(Promise.all(finalReports), 30_000);
    const writeTimes: KindTimes = {};
    for (const p of progressOf.values())
      for (const [kind, t] of Object.entries(p.kinds)) {
        const prior = writeTimes[kind] ?? { count: 0, totalMs: 0 };
        writeTimes[kind] = { count: prior.count + t.count, totalMs: prior.totalMs + t.totalMs };
      }
    log(
      `write latency: ${Object.entries(writeTimes)
        .map(([kind, t]) => `${kind} ${t.count} × ${(t.totalMs / Math.max(1, t.count)).toFixed(0)} ms`)
        .join(', ')}`,
    );
    stopFaults = true;
    await faultLoop;
    stopHeap = true;
    await heapLoop;

    faults['watch-timeout'] = replicas.reduce((a, r) => a + r.watchesEndedByServer, 0);
    log(`faults: ${FAULTS.map((f) => `${f} ${faults[f]}`).join(', ')}`);
    const last = checkpoints.at(-1);
    const counterTotals = [...tallies.values()].reduce(
      (a, t) => ({ succeeded: a.succeeded + t.succeeded, unknown: a.unknown + t.unknown }),
      { succeeded: 0, unknown: 0 },
    );
    const counterValue = (await settled(() => firstValueFrom(podSets.list()))).items
      .filter((p) => COUNTERS.includes(p.metadata!.name!))
      .reduce((a, p) => a + Number(p.metadata?.annotations?.[COUNTER_ANNOTATION] ?? '0'), 0);
    const longest = [...heapByReplica.values()].reduce<HeapSample[]>((a, b) => (b.length > a.length ? b : a), []);
    // The first 30 s are the start (informers listing, modules loading), not the trend.
    const heapSamples = longest.filter((sample) => sample.at >= (longest[0]?.at ?? 0) + HEAP_WARM_UP_MS);
    const troughs = heapAfterCollections(heapSamples) ?? heapTroughs(heapSamples, HEAP_WINDOW_MS);
    const heap = troughs.length >= 3 ? heapTrend(troughs) : undefined;
    const clean = checkpoints.every(
      (c) =>
        c.cacheDrift.length +
          c.replicaCacheDrift.length +
          c.unconverged.length +
          c.lostUpdates.length +
          c.overlaps.length ===
        0,
    );
    return {
      options: settings,
      events: totalEvents,
      failedEvents,
      faults,
      checkpoints,
      counters: { ...counterTotals, value: counterValue },
      reconciles: replicas.reduce((a, r) => a + r.spans.length, 0),
      eventsPerSecond: (totalEvents * 1000) / writingMs,
      writeLatencyMs: Object.fromEntries(
        Object.entries(writeTimes).map(([kind, t]) => [kind, Math.round(t.totalMs / Math.max(1, t.count))]),
      ),
      heap,
      heapSamples,
      heapReadings: [...heapByReplica.values()].reduce((sum, series) => sum + series.length, 0),
      heapTroughs: troughs,
      durationMs: Date.now() - started,
      passed: last !== undefined && clean && heap?.flat === true && FAULTS.every((f) => faults[f] > 0),
    };
  } catch (error) {
    keepLogs = true;
    throw error;
  } finally {
    closing = true;
    stopFaults = true;
    stopHeap = true;
    watching?.unsubscribe();
    // A fault in progress may still start a replica: let it finish first, so that nothing is left running.
    await atMost(Promise.all([faultLoop, heapLoop]), 90_000);
    for (const w of writers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await Promise.all(replicas.map((r) => stopReplica(r)));
    for (const proxy of proxies) await proxy.close();
    await firstValueFrom(resourceClient(kc, { apiVersion: 'v1', kind: 'Namespace' }).delete(namespace)).catch(
      () => undefined,
    );
    rmSync(dir, { recursive: true, force: true });
    if (keepLogs) log(`the replicas' logs are in ${logDir}`);
    else rmSync(logDir, { recursive: true, force: true });
  }
}
