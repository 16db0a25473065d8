/**
 * `npm run example -- node-labeler`: the node labeler at work, under the manager (leader election on the Lease
 * `node-labeler`, `/metrics`, `/healthz`, `/readyz`, logs on stderr, graceful stop).
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster and plays a small simulated workload against it.
 * - `--kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead (no
 *   workload). It then labels real nodes: pick the prefix that marks yours, e.g. `--provider-id-prefix kind://`.
 * - `--provider-id-prefix <p>` (default `demo://`), `--label <key>=<value>` (default `rxkube.io/cloud-node=true`),
 *   `--recheck-after <seconds>` (default 30), `--workers <n>` (default 2).
 * - The manager's flags (see `MANAGER_FLAGS`): `--metrics-bind-address` (default `127.0.0.1:8080`),
 *   `--health-probe-bind-address` (default `127.0.0.1:8081`), `--no-leader-elect`,
 *   `--leader-elect-resource-namespace` (default `default`), `--identity`, `--lease-duration`, `--renew-deadline`,
 *   `--retry-period`, `--shutdown-timeout` (ms), `--stop-on-stdin-eof`.
 * A bad option exits with code 2 and says why, before anything starts. Ctrl-C (SIGINT) or SIGTERM drains in-flight
 * reconciles, writes the pending Events, releases the Lease and exits 0; a second signal exits at once.
 * @module
 */
import { connectExample } from '../shared/cli.js';
import { checkedArgs, exampleArgs, exampleManagerOptions, runExampleManager } from '../shared/manager-cli.js';
import { formatDelay } from './handle-node.js';
import { nodeLabelerController } from './node-labeler.js';
import {
  DEFAULT_LABEL,
  DEFAULT_RECHECK_AFTER_MS,
  DEFAULT_REPORTING_CONTROLLER,
  DEFAULT_WORKERS,
  resolveOptions,
} from './options.js';
import { DEMO_PROVIDER_PREFIX, runNodeWorkload } from './workload.js';

const NAME = 'node-labeler';

const { kubeconfig, options, managerOptions } = checkedArgs(NAME, () => {
  const values = exampleArgs({
    kubeconfig: { type: 'string' },
    'provider-id-prefix': { type: 'string', default: DEMO_PROVIDER_PREFIX },
    label: { type: 'string', default: `${DEFAULT_LABEL.key}=${DEFAULT_LABEL.value}` },
    'recheck-after': { type: 'string', default: String(DEFAULT_RECHECK_AFTER_MS / 1000) },
    workers: { type: 'string', default: String(DEFAULT_WORKERS) },
  });
  const label = values.label;
  const equals = label.indexOf('=');
  if (equals < 0) throw new TypeError(`--label must be <key>=<value>, got ${JSON.stringify(label)}`);
  const labelerOptions = {
    providerIdPrefix: values['provider-id-prefix'],
    label: { key: label.slice(0, equals), value: label.slice(equals + 1) },
    recheckAfterMs: number('--recheck-after', values['recheck-after']) * 1000,
    workers: number('--workers', values.workers),
  };
  resolveOptions(labelerOptions);
  // Nodes are cluster-scoped: the Lease lives in `default` unless the flag says otherwise.
  return {
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    options: labelerOptions,
    managerOptions: exampleManagerOptions(values, 'default'),
  };
});

function number(option: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new TypeError(`${option} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

const { label, providerIdPrefix, recheckAfterMs } = resolveOptions(options);
const target = await connectExample(
  NAME,
  kubeconfig,
  `; labels nodes whose providerID starts with ${providerIdPrefix} ${label.key}=${label.value}`,
);

runExampleManager(
  NAME,
  target,
  {
    connection: target.kubeConfig,
    name: NAME,
    controllers: [nodeLabelerController(options)],
    // The Events say who wrote the label as the standalone labeler's do.
    events: { reportingController: DEFAULT_REPORTING_CONTROLLER },
    ...managerOptions,
  },
  {
    play: runNodeWorkload,
    done: `workload: done; cloud-2 gets its label at a re-check (every ${formatDelay(recheckAfterMs)}); still watching, Ctrl-C to stop`,
  },
);
