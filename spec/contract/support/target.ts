/**
 * The server a contract spec runs against, picked once per file: the in-memory API server under `npm test`, the
 * real kube-apiserver + etcd under `npm run test:e2e`. Test names are identical for both, so one scenario proves
 * the in-memory server matches the reference.
 */
import { randomBytes } from 'node:crypto';
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { startTestCluster } from '../../../src/testing/index.js';
import type { TestCluster, TestClusterOptions } from '../../../src/testing/index.js';
import { e2eCluster, isE2eRun, ownsControlPlane } from '../../e2e/support/cluster.js';
import type { E2eCluster } from '../../e2e/support/cluster.js';
import { rawRequest } from './raw.js';
import type { RawRequestOptions, RawResponse } from './raw.js';

/** What a file knows at load time, so it can decide which tests to register. */
export interface ContractTarget {
  /** `in-memory` or `kube-apiserver`; goes into the describe title. */
  readonly name: 'in-memory' | 'kube-apiserver';
  /**
   * The target can make every resourceVersion written so far unreachable (watch start points and continue tokens):
   * `faults.compact()` in memory; etcd compaction plus a kube-apiserver restart (a fresh, empty watch cache) on a
   * control plane this run owns. An existing cluster (`RXKUBE_E2E_KUBECONFIG`) cannot.
   */
  readonly canExpireHistory: boolean;
}

/** Picks the target for this mocha run. Cheap and synchronous: call it at module load. */
export function contractTarget(): ContractTarget {
  return isE2eRun()
    ? { name: 'kube-apiserver', canExpireHistory: ownsControlPlane }
    : { name: 'in-memory', canExpireHistory: true };
}

/** A started target plus this suite's private namespace and typed clients. */
export interface ContractSession {
  readonly kubeConfig: KubeConfig;
  /** A namespace created for this suite (random suffix); deleted afterwards, but tests never rely on that. */
  readonly namespace: string;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly extensions: ApiextensionsV1Api;
  /** Raw request on this target (exact Status bodies, custom Accept headers). */
  raw(method: string, path: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** Makes all history up to now unreachable; throws when the target cannot (see `canExpireHistory`). */
  expireHistory(): Promise<void>;
}

/** A DNS-label-safe random suffix, so suites and reruns on a shared real cluster never collide. */
export function suffix(): string {
  return randomBytes(4).toString('hex');
}

/**
 * Registers `before`/`after` hooks in the calling `describe` that start the target (in memory: one server per file,
 * with `inMemoryOptions` such as `ownerGC`; real: the run's shared control plane) and create a namespace; returns a
 * getter valid inside tests.
 *
 * # Guarantees
 * - The in-memory server is stopped in `after`, pass or fail; the shared real cluster is left to the root hook.
 * # Caveats
 * - This `after` runs before the suite's own `after` hooks; clean-ups there must tolerate a stopped server.
 */
export function useContractSession(
  target: ContractTarget, prefix: string, inMemoryOptions: Pick<TestClusterOptions, 'ownerGC'> = {},
): () => ContractSession {
  let session: ContractSession | undefined;
  let inMemory: TestCluster | undefined;

  before(async function () {
    this.timeout(isE2eRun() ? 120_000 : 20_000);
    let kubeConfig: KubeConfig;
    let expire: () => Promise<void>;
    if (target.name === 'in-memory') {
      // TLS and a token, so client-node's real auth and CA paths run, as against kube-apiserver.
      inMemory = await startTestCluster({ tls: true, token: `contract-${suffix()}`, bookmarkIntervalMs: 1000, ...inMemoryOptions });
      const cluster = inMemory;
      kubeConfig = cluster.kubeConfig;
      expire = async () => cluster.faults.compact();
    } else {
      const cluster: E2eCluster = await e2eCluster();
      kubeConfig = cluster.handle.kubeConfig;
      expire = async () => {
        const controlPlane = cluster.controlPlane;
        if (controlPlane === undefined) throw new Error('this target cannot expire history: the run does not own the control plane');
        await controlPlane.compactEtcd();
        // The watch cache keeps serving compacted revisions; only a fresh cache (initialised at the current
        // revision) makes older start points and continue tokens expire.
        await controlPlane.restartApiServer();
        await waitUntilServing(kubeConfig);
      };
    }
    const namespace = `${prefix}-${suffix()}`;
    const core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    session = {
      kubeConfig,
      namespace,
      core,
      apps: kubeConfig.makeApiClient(AppsV1Api),
      extensions: kubeConfig.makeApiClient(ApiextensionsV1Api),
      raw: (method, path, options) => rawRequest(kubeConfig, method, path, options),
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
  });

  return () => {
    if (session === undefined) throw new Error('the contract session is only available inside tests');
    return session;
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
    if (Date.now() > deadline) throw new Error(`kube-apiserver did not serve lists again: ${answers.map((a) => a?.status).join(', ')}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 250));
  }
}
