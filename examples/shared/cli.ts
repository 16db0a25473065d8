/**
 * Where every example's `main.ts` runs its controller: a kubeconfig's cluster, or the embedded in-memory cluster
 * (how it runs under the manager is `manager-cli.ts`).
 * @module
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startTestCluster, type TestCluster, type TestClusterOptions } from '../../src/testing/index.js';

/** The cluster an example runs against. */
export interface ExampleTarget {
  readonly kubeConfig: KubeConfig;
  /** The embedded in-memory cluster, when no kubeconfig was given: the example then plays its workload on it. */
  readonly cluster: TestCluster | undefined;
}

/**
 * Loads `kubeconfigPath` (the `--kubeconfig` option, else `KUBECONFIG`), or starts the embedded in-memory cluster
 * when there is none (started with `clusterOptions`, e.g. `{ ownerGC: true }` for an example whose demo relies on
 * garbage collection), and says which on the console as `<name>: …<detail>`.
 */
export async function connectExample(
  name: string, kubeconfigPath: string | undefined, detail = '', clusterOptions: TestClusterOptions = {},
): Promise<ExampleTarget> {
  const kubeConfig = new KubeConfig();
  if (kubeconfigPath) {
    kubeConfig.loadFromFile(kubeconfigPath);
    console.log(`${name}: using ${kubeconfigPath} (context ${kubeConfig.getCurrentContext()})${detail}`);
    return { kubeConfig, cluster: undefined };
  }
  const cluster = await startTestCluster(clusterOptions);
  kubeConfig.loadFromString(cluster.kubeConfig.exportConfig());
  console.log(`${name}: embedded in-memory cluster at ${cluster.url}${detail}; Ctrl-C to stop`);
  return { kubeConfig, cluster };
}
