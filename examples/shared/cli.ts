/**
 * Where every example's `main.ts` runs its controller: a kubeconfig's cluster, the cluster it runs in (a Pod of its
 * `deploy/` Deployment), or the embedded in-memory cluster (how it runs under the manager is `manager-cli.ts`).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
// The test kit loads its optional peers (fast-check, protobufjs, yaml) only when a feature needs one, so a production
// image of an example, which does not install them, can run the embedded cluster.
import { startTestCluster, type TestCluster, type TestClusterOptions } from '../../src/testing/index.js';
import { messageOf } from './health.js';

/** The cluster an example runs against. */
export interface ExampleTarget {
  readonly kubeConfig: KubeConfig;
  /** The embedded in-memory cluster, when no kubeconfig was given: the example then plays its workload on it. */
  readonly cluster: TestCluster | undefined;
}

/**
 * The environment variable that runs an example with the credentials of the Pod it runs in (its ServiceAccount):
 * `true` (or `1`) in the examples' Deployments and image; unset, empty, `false` or `0` otherwise.
 *
 * In-cluster config is opt-in, not detected, because every Pod has `KUBERNETES_SERVICE_HOST` and a token: the demo
 * run by a CI job in a Pod must still use the embedded cluster, not the CI cluster.
 */
export const IN_CLUSTER_ENV = 'RXKUBE_IN_CLUSTER';

/** Where a Pod's ServiceAccount volume is mounted (client-node's `loadFromCluster` reads the same files). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster KubeConfig: the API server at `KUBERNETES_SERVICE_HOST`:`KUBERNETES_SERVICE_PORT`, trusted through
 * the ServiceAccount's `ca.crt`, authenticated by its `token` file (re-read as the kubelet rotates it), the
 * namespace from its `namespace` file. This is client-node's `loadFromCluster`, checked first.
 *
 * # Guarantees
 * - Throws an `Error` that names what is missing (the environment variables, or which file under
 *   `root + SERVICE_ACCOUNT_DIR`) instead of a KubeConfig that fails at its first request.
 *
 * # Caveats
 * - `root` exists for tests (a temp dir standing in for `/`); a Pod leaves it at `''`. The environment is
 *   `process.env`, as `loadFromCluster` reads it.
 */
export function inClusterKubeConfig(root = ''): {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string | undefined;
} {
  const missingEnv = ['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'].filter((name) => !process.env[name]);
  if (missingEnv.length > 0) throw new Error(`not in a Pod: ${missingEnv.join(' and ')} not set`);
  const dir = join(root, SERVICE_ACCOUNT_DIR);
  const missingFiles = ['token', 'ca.crt'].filter((file) => !existsSync(join(dir, file)));
  if (missingFiles.length > 0) {
    throw new Error(
      `no ServiceAccount credentials: ${missingFiles.map((file) => join(dir, file)).join(' and ')} missing (automountServiceAccountToken off?)`,
    );
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromCluster(root);
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() || undefined : undefined;
  return { kubeConfig, namespace };
}

/** Whether {@link IN_CLUSTER_ENV} asks for the in-cluster config; throws a `TypeError` for a value that is neither. */
export function inClusterRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env[IN_CLUSTER_ENV] ?? '').trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === '' || value === 'false' || value === '0') return false;
  throw new TypeError(
    `${IN_CLUSTER_ENV} must be true, 1, false, 0 or empty, got ${JSON.stringify(env[IN_CLUSTER_ENV])}`,
  );
}

/**
 * Loads `kubeconfigPath` (the `--kubeconfig` option, else `KUBECONFIG`); else, when {@link IN_CLUSTER_ENV} is
 * `true`, the in-cluster config of the Pod it runs in; else starts the embedded in-memory cluster (started with
 * `clusterOptions`, e.g. `{ ownerGC: true }` for an example whose demo relies on garbage collection). It says which
 * on the console as `<name>: …<detail>`.
 *
 * # Guarantees
 * - A kubeconfig given explicitly wins over {@link IN_CLUSTER_ENV}, as controller-runtime's `--kubeconfig` wins over
 *   the in-cluster config.
 * - A bad {@link IN_CLUSTER_ENV} value, or in-cluster config asked for outside a Pod, prints `<name>: <why>` on
 *   stderr and exits with code 2 before anything starts; it never falls back to the embedded cluster.
 */
export async function connectExample(
  name: string,
  kubeconfigPath: string | undefined,
  detail = '',
  clusterOptions: TestClusterOptions = {},
): Promise<ExampleTarget> {
  const kubeConfig = new KubeConfig();
  if (kubeconfigPath) {
    kubeConfig.loadFromFile(kubeconfigPath);
    console.log(`${name}: using ${kubeconfigPath} (context ${kubeConfig.getCurrentContext()})${detail}`);
    return { kubeConfig, cluster: undefined };
  }
  let inCluster;
  try {
    inCluster = inClusterRequested() ? inClusterKubeConfig() : undefined;
  } catch (error) {
    console.error(`${name}: ${messageOf(error)}`);
    process.exit(2);
  }
  if (inCluster !== undefined) {
    const where = inCluster.namespace === undefined ? '' : `, Pod namespace ${inCluster.namespace}`;
    console.log(`${name}: in-cluster config (${inCluster.kubeConfig.getCurrentCluster()?.server}${where})${detail}`);
    return { kubeConfig: inCluster.kubeConfig, cluster: undefined };
  }
  const cluster = await startTestCluster(clusterOptions);
  kubeConfig.loadFromString(cluster.kubeConfig.exportConfig());
  console.log(`${name}: embedded in-memory cluster at ${cluster.url}${detail}; Ctrl-C to stop`);
  return { kubeConfig, cluster };
}
