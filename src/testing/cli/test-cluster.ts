/**
 * `rxkube-test-cluster`: runs the in-memory API server in the foreground, for kubectl, scripts and demos.
 *
 * `rxkube-test-cluster --port 0 --kubeconfig ./kubeconfig.yaml [--tls] [--token T] [--owner-gc]
 * [--namespace-lifecycle] [--log-requests]` writes the kubeconfig, prints exactly one `ready <url>` line, and stops
 * cleanly on SIGINT/SIGTERM; `--help` lists every flag. With `--tls` and no `--token`, a random token is generated
 * so the served endpoint is never open to other local users by accident.
 *
 * The garbage collector and the namespace controller are off unless asked for, as in `startTestCluster` and as on a
 * kube-apiserver without kube-controller-manager (what `rxkube-control-plane` runs): a dependent or a namespace's
 * content never disappears under a test that did not ask for it.
 * @module
 */
import '../../runtime/node-version.js';
import { randomBytes } from 'node:crypto';
import { startTestCluster } from '../apiserver/index.js';
import { requestLine } from './request-line.js';
import { runClusterCli, type ClusterCommand } from './serve.js';

const command: ClusterCommand = {
  name: 'rxkube-test-cluster',
  summary:
    'Runs the in-memory Kubernetes API server on 127.0.0.1 in the foreground: writes the kubeconfig, prints one\n' +
    '"ready <url>" line on stdout, and stops on SIGINT or SIGTERM (a second signal exits at once).',
  tlsHelp: 'serve HTTPS with a generated CA (default: plain HTTP); a token is generated unless --token is given',
  switches: [
    {
      name: 'owner-gc',
      help: 'run the garbage collector: deleting an owner deletes its dependents (default off, as without kube-controller-manager)',
    },
    {
      name: 'namespace-lifecycle',
      help: 'run the namespace controller: deleting a namespace deletes its content (default off, same reason)',
    },
    {
      name: 'log-requests',
      help: 'print every request to stderr as it is answered: time, status, method, path and query, user agent',
    },
  ],
};

await runClusterCli(command, process.argv.slice(2), async ({ port, tls, token, switches }) => {
  const cluster = await startTestCluster({
    port,
    tls,
    ownerGC: switches['owner-gc'] === true,
    namespaceLifecycle: switches['namespace-lifecycle'] === true,
    ...(token !== undefined ? { token } : tls ? { token: randomBytes(16).toString('hex') } : {}),
  });
  if (switches['log-requests'] === true)
    cluster.requestLog.records$.subscribe((record) => process.stderr.write(`${requestLine(record)}\n`));
  return cluster;
});
