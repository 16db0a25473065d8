import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterHandle } from '../cluster.js';
import { writeKubeConfigFile } from '../kubeconfig.js';

/**
 * A {@link ClusterHandle} for a cluster someone else runs (kind, a CI cluster, a long-lived local control plane),
 * loaded from a kubeconfig file.
 *
 * # Guarantees
 * - The file is read once, now; a missing or unparsable file, or one without a current cluster, throws an
 *   `Error` naming the path.
 * - `stop()` does nothing to the cluster (this process does not own it) and is idempotent.
 *
 * # Caveats
 * Tests that need to restart the API server or compact etcd cannot run against such a cluster.
 */
export function existingCluster(kubeconfigPath: string, options: { context?: string } = {}): ClusterHandle {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(readFileSync(kubeconfigPath, 'utf8'));
  } catch (error) {
    throw new Error(`cannot load kubeconfig ${kubeconfigPath}: ${(error as Error).message}`);
  }
  if (options.context) kubeConfig.setCurrentContext(options.context);
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster)
    throw new Error(
      `kubeconfig ${kubeconfigPath} has no cluster for context ${JSON.stringify(kubeConfig.getCurrentContext())}`,
    );
  return {
    url: cluster.server,
    kubeConfig,
    writeKubeconfig: (path) => writeKubeConfigFile(kubeConfig, path),
    stop: async () => undefined,
  };
}
