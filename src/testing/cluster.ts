import type { KubeConfig } from '@kubernetes/client-node';

/**
 * What every test cluster hands back, whether it is the in-memory API server or a real kube-apiserver + etcd.
 *
 * Test code written against this interface runs unchanged against either server; that is how the contract suite
 * proves the in-memory server's fidelity.
 *
 * # Guarantees
 * - `kubeConfig` is a fully loaded client-node `KubeConfig` whose current context points at `url` with working
 *   credentials (token or client certificate) and CA data.
 * - `stop()` is idempotent and resolves only when every listening socket and child process is gone.
 */
export interface ClusterHandle {
  /** Base URL of the API server, e.g. `https://127.0.0.1:43121`. */
  readonly url: string;
  /** A client-node KubeConfig for an admin user of this cluster. */
  readonly kubeConfig: KubeConfig;
  /** Writes a kubeconfig file that kubectl and client-node can load; resolves once it is on disk. */
  writeKubeconfig(path: string): Promise<void>;
  /** Stops the cluster and releases everything it holds. Safe to call more than once. */
  stop(): Promise<void>;
}
