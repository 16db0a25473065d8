/**
 * `rxkube-control-plane`: runs a real kube-apiserver + etcd in the foreground, rxkube-test-cluster's twin.
 *
 * `rxkube-control-plane --kubeconfig ./kubeconfig.yaml [--port N] [--token T]` writes the kubeconfig, prints
 * exactly one `ready <url>` line, and stops both processes on SIGINT/SIGTERM. The server always serves TLS with a
 * generated CA, so `--tls` changes nothing. Binaries come from RXKUBE_ASSETS, KUBEBUILDER_ASSETS or rxkube's cache
 * (`npm run control-plane:build`).
 * @module
 */
import { startControlPlane } from '../control-plane/index.js';
import { runClusterCli } from './serve.js';

await runClusterCli('rxkube-control-plane', process.argv.slice(2), ({ port, token }) =>
  startControlPlane({ port, ...(token === undefined ? {} : { adminToken: token }) }),
);
