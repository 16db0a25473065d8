/**
 * `rxkube-test-cluster`: runs the in-memory API server in the foreground, for kubectl, scripts and demos.
 *
 * `rxkube-test-cluster --port 0 --kubeconfig ./kubeconfig.yaml [--tls] [--token T]` writes the kubeconfig, prints
 * exactly one `ready <url>` line, and stops cleanly on SIGINT/SIGTERM. With `--tls` and no `--token`, a random
 * token is generated so the served endpoint is never open to other local users by accident.
 * @module
 */
import '../../runtime/node-version.js';
import { randomBytes } from 'node:crypto';
import { startTestCluster } from '../apiserver/index.js';
import { runClusterCli } from './serve.js';

await runClusterCli('rxkube-test-cluster', process.argv.slice(2), ({ port, tls, token }) =>
  startTestCluster({
    port,
    tls,
    ...(token !== undefined ? { token } : tls ? { token: randomBytes(16).toString('hex') } : {}),
  }),
);
