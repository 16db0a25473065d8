/**
 * The command-line plumbing every example's `main.ts` shares: where the cluster is (a kubeconfig, or the embedded
 * in-memory cluster) and how Ctrl-C stops the controller.
 * @module
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

/** The cluster an example runs against. */
export interface ExampleTarget {
  readonly kubeConfig: KubeConfig;
  /** The embedded in-memory cluster, when no kubeconfig was given: the example then plays its workload on it. */
  readonly cluster: TestCluster | undefined;
}

/**
 * Loads `kubeconfigPath` (the `--kubeconfig` option, else `KUBECONFIG`), or starts the embedded in-memory cluster
 * when there is none, and says which on the console as `<name>: …<detail>`.
 */
export async function connectExample(name: string, kubeconfigPath: string | undefined, detail = ''): Promise<ExampleTarget> {
  const kubeConfig = new KubeConfig();
  if (kubeconfigPath) {
    kubeConfig.loadFromFile(kubeconfigPath);
    console.log(`${name}: using ${kubeconfigPath} (context ${kubeConfig.getCurrentContext()})${detail}`);
    return { kubeConfig, cluster: undefined };
  }
  const cluster = await startTestCluster();
  kubeConfig.loadFromString(cluster.kubeConfig.exportConfig());
  console.log(`${name}: embedded in-memory cluster at ${cluster.url}${detail}; Ctrl-C to stop`);
  return { kubeConfig, cluster };
}

/**
 * On the first SIGINT or SIGTERM, says so and calls `stop` (which should drain in-flight reconciles); a second
 * signal exits at once with code 130.
 */
export function onStopSignals(name: string, stop: () => void): void {
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log(`${name}: stopping (draining in-flight reconciles)`);
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Once the controller has completed: stops the embedded cluster, if any, then exits with code 0. */
export function exitWhenDone(target: ExampleTarget): void {
  void (target.cluster?.stop() ?? Promise.resolve()).then(() => process.exit(0));
}
