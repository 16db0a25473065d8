/**
 * `npm run example -- website-operator`: the website operator under the manager (leader election on the Lease
 * `website-operator`, `/metrics`, `/healthz`, `/readyz`, logs on stderr, graceful stop).
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster (with its garbage collector on) and plays the demo
 *   workload against it: CRD, defaults, three Websites, changes, rollouts, a deletion.
 * - `--kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead (no
 *   workload). The CRD must be installed there (`kubectl apply --server-side -f examples/website-operator/deploy/crd.yaml`),
 *   or pass `--install-crd` (which needs rights on CustomResourceDefinitions; the operator itself needs none).
 * - `--namespace <ns>`: reconcile Websites in that namespace only (default: every namespace; the demo uses
 *   `default` then).
 * - `--records-dir <dir>`: where the DNS record files go (default `<tmp>/rxkube-website-records`);
 *   `--domain <zone>` (default `websites.example.test`); `--workers <n>` (default 2); `--resync-period <ms>`
 *   (default 300000).
 * - The manager's flags (see `MANAGER_FLAGS`): `--metrics-bind-address` (default `127.0.0.1:8080`),
 *   `--health-probe-bind-address` (default `127.0.0.1:8081`), `--no-leader-elect`,
 *   `--leader-elect-resource-namespace` (default: `--namespace`, else `default`), `--identity`, `--lease-duration`,
 *   `--renew-deadline`, `--retry-period`, `--shutdown-timeout` (ms), `--stop-on-stdin-eof`.
 * A bad option exits with code 2 and says why, before anything starts. Ctrl-C (SIGINT) or SIGTERM drains in-flight
 * reconciles, writes the pending Events, releases the Lease and exits 0; a second signal exits at once.
 * @module
 */
import { existsSync } from 'node:fs';
import { connectExample } from '../shared/cli.js';
import { installExampleCrd } from '../shared/crd.js';
import { checkedArgs, exampleArgs, exampleManagerOptions, runExampleManager } from '../shared/manager-cli.js';
import { websiteController } from './controller.js';
import { websiteCrd } from './crd.js';
import {
  DEFAULT_DOMAIN,
  DEFAULT_RECORDS_DIRECTORY,
  DEFAULT_RESYNC_PERIOD_MS,
  DEFAULT_WORKERS,
  resolveOptions,
} from './options.js';
import { fileRecords } from './records.js';
import { WEBSITE } from './website.js';
import { runWebsiteWorkload } from './workload.js';

const NAME = 'website-operator';

const { kubeconfig, installCrd, options, managerOptions } = checkedArgs(NAME, () => {
  const values = exampleArgs({
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    'records-dir': { type: 'string', default: DEFAULT_RECORDS_DIRECTORY },
    domain: { type: 'string', default: DEFAULT_DOMAIN },
    workers: { type: 'string', default: String(DEFAULT_WORKERS) },
    'resync-period': { type: 'string', default: String(DEFAULT_RESYNC_PERIOD_MS) },
    'install-crd': { type: 'boolean', default: false },
  });
  const operatorOptions = {
    ...(values.namespace ? { namespace: values.namespace } : {}),
    records: fileRecords(values['records-dir']),
    domain: values.domain,
    workers: number('--workers', values.workers),
    resyncPeriodMs: number('--resync-period', values['resync-period']),
  };
  resolveOptions(operatorOptions);
  return {
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    installCrd: values['install-crd'],
    options: { ...operatorOptions, recordsDirectory: values['records-dir'] },
    managerOptions: exampleManagerOptions(values, values.namespace || 'default'),
  };
});

function number(option: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new TypeError(`${option} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

const scope = options.namespace ? `namespace ${options.namespace}` : 'every namespace';
const target = await connectExample(
  NAME,
  kubeconfig,
  `; Websites in ${scope}, DNS records in ${options.recordsDirectory}`,
  { ownerGC: true },
);

// On the embedded cluster the workload installs it, as its first step.
if (installCrd && target.cluster === undefined) await installExampleCrd(NAME, target, websiteCrd(), WEBSITE);

runExampleManager(
  NAME,
  target,
  {
    connection: target.kubeConfig,
    name: NAME,
    controllers: [websiteController(options)],
    events: { reportingController: 'example.rxkube.io/website-operator' },
    ...managerOptions,
  },
  {
    play: (kubeConfig, narrate, signal) =>
      runWebsiteWorkload(kubeConfig, options.namespace ?? 'default', narrate, signal, (namespace, name) =>
        existsSync(options.records.where(namespace, name)),
      ),
    done: 'workload: done; shop and docs are Ready, their records stay published; still watching, Ctrl-C to stop',
  },
);
