/**
 * `npm run example -- cluster-dashboard`: the PodSet controller of the replica-set example under the manager, and a
 * live web page about it on http://127.0.0.1:8090/, in one process.
 *
 * - The page shows the PodSets and Pods by namespace (from derived views over the manager's shared informers), each
 *   PodSet with its Pods, the controller's work queue (depth, waiting, running and delayed keys), its recent runs
 *   with their reasons, durations and errors, and leader election. It is updated over Server-Sent Events, at most
 *   every `--update-interval` ms (default 250).
 * - With no kubeconfig, it starts the embedded in-memory cluster (garbage collector on), installs the PodSet CRD,
 *   and plays a workload until stopped: PodSets created and scaled, a Pod deleted by hand, a PodSet whose Pods the
 *   API server refuses (failed runs, retries) fixed later; a stand-in kubelet marks the Pods Ready.
 * - `--kubeconfig <path>` (or `KUBECONFIG`) runs it against that cluster (no workload); the CRD must be installed
 *   there, or pass `--install-crd`.
 * - `--dashboard-port <n>` (default 8090, 0 for any free one) on 127.0.0.1 only; `--update-interval <ms>`;
 *   `--max-clients <n>` browsers at once (default 32); `--namespace`, `--workers` as the replica-set example; the
 *   manager's flags (`examples/shared/manager-cli.ts`).
 * A bad option exits with code 2 and says why, before anything starts. Ctrl-C (SIGINT) or SIGTERM drains the
 * in-flight syncs (the page says it is stopping), closes the page's connections, releases the Lease and exits 0.
 * @module
 */
import { connectExample } from '../shared/cli.js';
import { installExampleCrd } from '../shared/crd.js';
import { checkedArgs, exampleArgs, exampleManagerOptions, runExampleManager } from '../shared/manager-cli.js';
import { DEFAULT_WORKERS } from '../replica-set/options.js';
import { PODSET, podSetCrd } from '../replica-set/podset.js';
import { replicaSetController } from '../replica-set/replica-set.js';
import { clusterDashboard } from './dashboard.js';
import { DEFAULT_DASHBOARD_PORT, DEFAULT_MAX_CLIENTS, DEFAULT_UPDATE_INTERVAL_MS } from './options.js';
import { runDashboardWorkload } from './workload.js';

const NAME = 'cluster-dashboard';

const { kubeconfig, installCrd, controllers, managerOptions, scope } = checkedArgs(NAME, () => {
  const values = exampleArgs({
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    workers: { type: 'string', default: String(DEFAULT_WORKERS) },
    'install-crd': { type: 'boolean', default: false },
    'dashboard-port': { type: 'string', default: String(DEFAULT_DASHBOARD_PORT) },
    'update-interval': { type: 'string', default: String(DEFAULT_UPDATE_INTERVAL_MS) },
    'max-clients': { type: 'string', default: String(DEFAULT_MAX_CLIENTS) },
  });
  const namespace = values.namespace === undefined ? {} : { namespace: values.namespace };
  const managerOptions = exampleManagerOptions(values, values.namespace ?? 'default');
  const { leaderElection } = managerOptions;
  const dashboard = clusterDashboard({
    title: NAME,
    port: numberFlag('dashboard-port', values['dashboard-port']),
    updateIntervalMs: numberFlag('update-interval', values['update-interval']),
    maxClients: numberFlag('max-clients', values['max-clients']),
    ...namespace,
    // The manager's Lease is named after it (ManagerLeaderElection.name's default).
    lease:
      leaderElection === false || leaderElection === undefined
        ? false
        : { namespace: leaderElection.namespace!, name: NAME },
  });
  const podSets = replicaSetController({ ...namespace, workers: numberFlag('workers', values.workers) });
  return {
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    installCrd: values['install-crd'],
    controllers: [dashboard.observe(podSets), dashboard.controller],
    managerOptions,
    scope: values.namespace === undefined ? 'every namespace' : `namespace ${values.namespace}`,
  };
});

const target = await connectExample(NAME, kubeconfig, `; a live page about the PodSets in ${scope}`, { ownerGC: true });

if (target.cluster !== undefined || installCrd) await installExampleCrd(NAME, target, podSetCrd(), PODSET);

runExampleManager(
  NAME,
  target,
  {
    connection: target.kubeConfig,
    name: NAME,
    controllers,
    ...managerOptions,
  },
  {
    play: runDashboardWorkload,
    done: 'workload: stopped',
  },
);

/** A flag's value as a number; a `TypeError` naming the flag when it is not one (its range is checked by its user). */
function numberFlag(flag: string, value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number))
    throw new TypeError(`--${flag} must be a number, got ${JSON.stringify(value)}`);
  return number;
}
