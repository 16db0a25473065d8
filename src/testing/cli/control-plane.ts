/**
 * `rxkube-control-plane`: runs a real kube-apiserver + etcd in the foreground, rxkube-test-cluster's twin.
 *
 * - `rxkube-control-plane --kubeconfig ./kubeconfig.yaml [--port N] [--token T]` writes the kubeconfig, prints
 *   exactly one `ready <url>` line, and stops both processes on SIGINT/SIGTERM. The server always serves TLS with a
 *   generated CA, so `--tls` changes nothing. Binaries come from RXKUBE_ASSETS, KUBEBUILDER_ASSETS or rxkube's cache.
 * - `rxkube-control-plane build` builds the binaries into rxkube's cache (needs Go >= 1.26); it exits 0 when they
 *   are usable.
 * @module
 */
import '../../runtime/node-version.js';
import { buildControlPlane, startControlPlane } from '../control-plane/index.js';
import { runClusterCli } from './serve.js';

const argv = process.argv.slice(2);
if (argv[0] === 'build') {
  process.exitCode = argv.length === 1 ? await buildControlPlane() : (process.stderr.write('usage: rxkube-control-plane build\n'), 2);
} else {
  await runClusterCli('rxkube-control-plane', argv, ({ port, token }) =>
    startControlPlane({ port, ...(token === undefined ? {} : { adminToken: token }) }),
  );
}
