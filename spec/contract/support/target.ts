/**
 * The servers a contract spec runs against, picked once per run: under `npm test` the in-memory API server over
 * HTTPS and the same server core in process (the virtual cluster, no socket), under `npm run test:e2e` the real
 * kube-apiserver + etcd. Test names are identical for all, so one scenario proves the in-memory server matches the
 * reference, and that serving it in process changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import type { Configuration, KubeConfig } from '@kubernetes/client-node';
import { asyncScheduler } from 'rxjs';
import { startTestCluster, virtualCluster } from '../../../src/testing/index.js';
import type { TestCluster, TestClusterOptions, VirtualCluster } from '../../../src/testing/index.js';
import type { Connection } from '../../../src/transport/index.js';
import { e2eCluster, isE2eRun, ownsControlPlane } from '../../e2e/support/cluster.js';
import type { E2eCluster } from '../../e2e/support/cluster.js';
import { openWatch, rawRequest } from './raw.js';
import type { OpenWatch, RawRequestOptions, RawResponse } from './raw.js';
import { virtualClientConfiguration, virtualOpenWatch, virtualRaw } from './virtual.js';

/** What a file knows at load time, so it can decide which tests to register. */
export interface ContractTarget {
  /**
   * `in-memory` (over HTTPS), `virtual` (the same core in process) or `kube-apiserver`; goes into the describe
   * title.
   */
  readonly name: 'in-memory' | 'virtual' | 'kube-apiserver';
  /** Served by rxkube's in-memory server core (over HTTP or in process): its scenarios and known differences apply. */
  readonly inMemoryCore: boolean;
  /**
   * The target can make every resourceVersion written so far unreachable (watch start points and continue tokens):
   * `faults.compact()` in memory; etcd compaction plus a kube-apiserver restart (a fresh, empty watch cache) on a
   * control plane this run owns. An existing cluster (`RXKUBE_E2E_KUBECONFIG`) cannot.
   */
  readonly canExpireHistory: boolean;
}

/** Picks the targets for this mocha run. Cheap and synchronous: call it at module load. */
export function contractTargets(): readonly ContractTarget[] {
  return isE2eRun()
    ? [{ name: 'kube-apiserver', inMemoryCore: false, canExpireHistory: ownsControlPlane }]
    : [
        { name: 'in-memory', inMemoryCore: true, canExpireHistory: true },
        { name: 'virtual', inMemoryCore: true, canExpireHistory: true },
      ];
}

/**
 * Registers the scenarios of `register` only on targets reached over HTTP; on the virtual cluster it prints which
 * scenario is left out and why, at load time (never a silent `.skip`).
 */
export function overHttpOnly(target: ContractTarget, scenario: string, reason: string, register: () => void): void {
  if (target.name !== 'virtual') {
    register();
    return;
  }
  console.log(`contract (virtual): "${scenario}" is excluded: ${reason}`);
}

/** A started target plus this suite's private namespace and typed clients. */
export interface ContractSession {
  /** What rxkube's entry points take: the target's KubeConfig, or the virtual cluster itself. */
  readonly connection: Connection;
  /**
   * The target's KubeConfig, for client-node code that opens its own connections (its `Watch`); undefined for the
   * virtual cluster, which has no socket (such scenarios are registered through {@link overHttpOnly}).
   */
  readonly kubeConfig: KubeConfig | undefined;
  /** client-node's dynamic client on the target. */
  readonly objects: KubernetesObjectApi;
  /** A namespace created for this suite (random suffix); deleted afterwards, but tests never rely on that. */
  readonly namespace: string;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly extensions: ApiextensionsV1Api;
  /** Raw request on this target (exact Status bodies, custom Accept headers). */
  raw(method: string, path: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** A raw watch on this target (`path` must carry `watch=1`). */
  openWatch(path: string, accept?: string): Promise<OpenWatch>;
  /** Makes all history up to now unreachable; throws when the target cannot (see `canExpireHistory`). */
  expireHistory(): Promise<void>;
}

/** A DNS-label-safe random suffix, so suites and reruns on a shared real cluster never collide. */
export function suffix(): string {
  return randomBytes(4).toString('hex');
}

/**
 * Registers `before`/`after` hooks in the calling `describe` that start the target (in memory and virtual: one server
 * per file, with `inMemoryOptions` such as `ownerGC`; real: the run's shared control plane) and create a namespace; returns a
 * getter valid inside tests.
 *
 * # Guarantees
 * - The in-memory server is stopped (the virtual cluster closed) in `after`, pass or fail; the shared real cluster is
 *   left to the root hook.
 * # Caveats
 * - This `after` runs before the suite's own `after` hooks; clean-ups there must tolerate a stopped server.
 */
export function useContractSession(
  target: ContractTarget,
  prefix: string,
  inMemoryOptions: Pick<TestClusterOptions, 'ownerGC'> = {},
): () => ContractSession {
  let session: ContractSession | undefined;
  let inMemory: TestCluster | undefined;
  let virtual: VirtualCluster | undefined;

  before(async function () {
    this.timeout(isE2eRun() ? 120_000 : 20_000);
    let access: TargetAccess;
    let expire: () => Promise<void>;
    if (target.name === 'in-memory') {
      // TLS and a token, so client-node's real auth and CA paths run, as against kube-apiserver.
      inMemory = await startTestCluster({
        tls: true,
        token: `contract-${suffix()}`,
        bookmarkIntervalMs: 1000,
        ...inMemoryOptions,
      });
      const cluster = inMemory;
      access = kubeConfigAccess(cluster.kubeConfig);
      expire = async () => cluster.faults.compact();
    } else if (target.name === 'virtual') {
      // Real time (the scenarios await real promises), no socket: every byte goes through the in-process exchange.
      virtual = virtualCluster({ scheduler: asyncScheduler, bookmarkIntervalMs: 1000, ...inMemoryOptions });
      const cluster = virtual;
      access = virtualAccess(cluster);
      expire = async () => cluster.faults.compact();
    } else {
      const cluster: E2eCluster = await e2eCluster();
      const kubeConfig = cluster.handle.kubeConfig;
      access = kubeConfigAccess(kubeConfig);
      expire = async () => {
        const controlPlane = cluster.controlPlane;
        if (controlPlane === undefined)
          throw new Error('this target cannot expire history: the run does not own the control plane');
        await controlPlane.compactEtcd();
        // The watch cache keeps serving compacted revisions; only a fresh cache (initialised at the current
        // revision) makes older start points and continue tokens expire.
        await controlPlane.restartApiServer();
        await waitUntilServing(kubeConfig);
      };
    }
    const namespace = `${prefix}-${suffix()}`;
    const core = access.client(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    session = {
      connection: access.connection,
      kubeConfig: access.kubeConfig,
      objects: access.objects,
      namespace,
      core,
      apps: access.client(AppsV1Api),
      extensions: access.client(ApiextensionsV1Api),
      raw: access.raw,
      openWatch: access.openWatch,
      expireHistory: async () => {
        if (!target.canExpireHistory) throw new Error(`${target.name} cannot expire history`);
        await expire();
      },
    };
  });

  after(async function () {
    this.timeout(30_000);
    // `session` stays readable: a suite's own `after` hooks run after this one (mocha's registration order) and
    // may still clean up on a real cluster; against a stopped in-memory server their requests simply fail.
    const current = session;
    if (current !== undefined) await current.core.deleteNamespace({ name: current.namespace }).catch(() => undefined);
    await inMemory?.stop();
    inMemory = undefined;
    virtual?.close();
    virtual = undefined;
  });

  return () => {
    if (session === undefined) throw new Error('the contract session is only available inside tests');
    return session;
  };
}

/** How a session reaches its target: the entry points' connection, typed clients, raw requests and watches. */
interface TargetAccess {
  readonly connection: Connection;
  readonly kubeConfig: KubeConfig | undefined;
  readonly objects: KubernetesObjectApi;
  client<A>(api: new (configuration: Configuration) => A): A;
  raw(method: string, path: string, options?: RawRequestOptions): Promise<RawResponse>;
  openWatch(path: string, accept?: string): Promise<OpenWatch>;
}

function kubeConfigAccess(kubeConfig: KubeConfig): TargetAccess {
  return {
    connection: kubeConfig,
    kubeConfig,
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    client: (api) => kubeConfig.makeApiClient(api as never) as never,
    raw: (method, path, options) => rawRequest(kubeConfig, method, path, options),
    openWatch: (path, accept) => openWatch(kubeConfig, path, accept),
  };
}

function virtualAccess(cluster: VirtualCluster): TargetAccess {
  const configuration = virtualClientConfiguration(cluster);
  return {
    connection: cluster,
    kubeConfig: undefined,
    objects: new KubernetesObjectApi(configuration),
    client: (api) => new api(configuration),
    raw: (method, path, options) => virtualRaw(cluster, method, path, options),
    openWatch: async (path, accept) => virtualOpenWatch(cluster, path, accept),
  };
}

/**
 * After a kube-apiserver restart `/readyz` can pass before every resource's watch cache is initialised (those
 * requests get 429/503 for a moment), so poll a cheap list until it answers 200, bounded.
 */
async function waitUntilServing(kubeConfig: KubeConfig): Promise<void> {
  const paths = ['/api/v1/configmaps?limit=1', '/api/v1/pods?limit=1', '/apis/apps/v1/deployments?limit=1'];
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answers = await Promise.all(paths.map((path) => rawRequest(kubeConfig, 'GET', path).catch(() => undefined)));
    if (answers.every((answer) => answer?.status === 200)) return;
    if (Date.now() > deadline)
      throw new Error(`kube-apiserver did not serve lists again: ${answers.map((a) => a?.status).join(', ')}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 250));
  }
}
