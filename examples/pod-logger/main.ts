/**
 * `npm start` (or `npm run example -- pod-logger`): the pod logger at work, under the manager (leader election,
 * `/metrics`, `/healthz`, `/readyz`, logs on stderr, graceful stop).
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster and plays a small simulated workload against it.
 * - `npm start -- --kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead
 *   (no workload; it only watches).
 * - `--namespace <ns>` picks the namespace (default `default`); the Lease `pod-logger` lives there too.
 * - `--metrics-bind-address` (default `127.0.0.1:8080`) and `--health-probe-bind-address` (default
 *   `127.0.0.1:8081`), controller-runtime's flags: `host:port`, `:port` for all interfaces, port 0 for any free one,
 *   `0` for none.
 * - `--no-leader-elect` turns leader election off; `--leader-elect-resource-namespace` (default: `--namespace`),
 *   `--lease-duration`, `--renew-deadline`, `--retry-period` (ms) and `--identity` tune it; `--shutdown-timeout`
 *   (ms) bounds the drain (see `MANAGER_FLAGS`).
 * - `--stop-on-stdin-eof`: stop gracefully when stdin ends (test harnesses hold it open as a lifeline).
 * - `--log-format text|json`, `--log-level`, `--log-stacks` (or `RXKUBE_LOG_STACKS=1`): the manager's logs, human
 *   lines on a terminal and JSON lines elsewhere by default (see `exampleLogger`).
 * A bad option exits with code 2 and says why, before anything starts. Ctrl-C (SIGINT) or SIGTERM drains in-flight
 * reconciles, releases the Lease and exits 0; a second signal exits at once.
 * @module
 */
import { connectExample } from '../shared/cli.js';
import { checkedArgs, exampleArgs, exampleManagerOptions, runExampleManager } from '../shared/manager-cli.js';
import { podLogger } from './pod-logger.js';
import { runDemoWorkload } from './workload.js';

const NAME = 'pod-logger';

const { kubeconfig, namespace, managerOptions } = checkedArgs(NAME, () => {
  const values = exampleArgs({
    kubeconfig: { type: 'string' },
    namespace: { type: 'string', default: 'default' },
  });
  return {
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    namespace: values.namespace,
    managerOptions: exampleManagerOptions(values, values.namespace),
  };
});

const target = await connectExample(NAME, kubeconfig, `, namespace ${namespace}`);

runExampleManager(
  NAME,
  target,
  {
    connection: target.kubeConfig,
    name: NAME,
    controllers: [podLogger({ namespace })],
    ...managerOptions,
  },
  {
    play: (kubeConfig, narrate, signal) => runDemoWorkload(kubeConfig, namespace, narrate, signal),
    done: 'workload: done; still watching, Ctrl-C to stop',
  },
);
