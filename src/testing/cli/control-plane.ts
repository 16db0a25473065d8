/**
 * `rxkube-control-plane`: runs a real kube-apiserver + etcd in the foreground, rxkube-test-cluster's twin.
 *
 * - `rxkube-control-plane --kubeconfig ./kubeconfig.yaml [--port N] [--token T]` writes the kubeconfig, prints
 *   exactly one `ready <url>` line, and stops both processes on SIGINT/SIGTERM. The server always serves TLS with a
 *   generated CA, so `--tls` changes nothing. Binaries come from RXKUBE_ASSETS, KUBEBUILDER_ASSETS or rxkube's cache.
 * - `rxkube-control-plane build` builds the binaries into rxkube's cache (needs Go >= 1.26); it exits 0 when they
 *   are usable.
 * - `--help` lists every flag.
 * @module
 */
import '../../runtime/node-version.js';
import { buildControlPlane, startControlPlane } from '../control-plane/index.js';
import { runClusterCli, type ClusterCommand } from './serve.js';

const command: ClusterCommand = {
  name: 'rxkube-control-plane',
  summary:
    'Runs a real kube-apiserver and etcd (no kube-controller-manager) on 127.0.0.1 in the foreground: writes the\n' +
    'kubeconfig, prints one "ready <url>" line on stdout, and stops both on SIGINT or SIGTERM.',
  tlsHelp: 'accepted for symmetry with rxkube-test-cluster: the server always serves HTTPS with a generated CA',
  notes: [
    'Subcommand:',
    "  build                builds kube-apiserver and etcd into rxkube's cache (needs Go >= 1.26); exit 0 when usable",
    '',
    "Binaries come from RXKUBE_ASSETS, KUBEBUILDER_ASSETS or rxkube's cache.",
  ],
};

const argv = process.argv.slice(2);
if (argv[0] === 'build') {
  if (argv.length === 1) process.exitCode = await buildControlPlane();
  else {
    process.stderr.write('usage: rxkube-control-plane build\n');
    process.exitCode = 2;
  }
} else {
  await runClusterCli(command, argv, ({ port, token }) =>
    startControlPlane({ port, ...(token === undefined ? {} : { adminToken: token }) }),
  );
}
