/**
 * `npm run example -- replica-set`: the PodSet controller at work, under the manager (leader election on the Lease
 * `replica-set`, `/metrics`, `/healthz`, `/readyz`, logs on stderr, graceful stop).
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster (with its garbage collector on), installs the
 *   PodSet CRD, and plays a small workload: a PodSet of 3, scaled to 5, a Pod deleted by hand and replaced, scaled
 *   to 1, deleted; a stand-in kubelet marks the Pods Ready.
 * - `--kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead (no
 *   workload). The CRD must be installed there (`kubectl apply -f examples/replica-set/deploy/podset-crd.yaml`), or pass
 *   `--install-crd`.
 * - `--namespace <ns>` watches one namespace (default: all), `--workers <n>` (default 5) PodSets synced at once,
 *   `--expectations-timeout <ms>` (default 300000, kube-controller-manager's 5 minutes) how long expectations may
 *   hold a PodSet back.
 * - The manager's flags (see `MANAGER_FLAGS`): `--metrics-bind-address` (default `127.0.0.1:8080`),
 *   `--health-probe-bind-address` (default `127.0.0.1:8081`), `--no-leader-elect`,
 *   `--leader-elect-resource-namespace` (default: `--namespace`, else `default`), `--identity`, `--lease-duration`,
 *   `--renew-deadline`, `--retry-period`, `--shutdown-timeout` (ms), `--stop-on-stdin-eof`,
 *   `--min-watch-timeout` (ms, or `server`).
 * A bad option exits with code 2 and says why, before anything starts. Ctrl-C (SIGINT) or SIGTERM drains in-flight
 * syncs, writes the pending Events, releases the Lease and exits 0; a second signal exits at once.
 * @module
 */
import { connectExample } from '../shared/cli.js';
import { installExampleCrd } from '../shared/crd.js';
import { checkedArgs, exampleArgs, exampleManagerOptions, runExampleManager } from '../shared/manager-cli.js';
import { DEFAULT_WORKERS, resolveOptions } from './options.js';
import { PODSET, podSetCrd } from './podset.js';
import { replicaSetController } from './replica-set.js';
import { runPodSetWorkload } from './workload.js';

const NAME = 'replica-set';

const { kubeconfig, installCrd, options, managerOptions } = checkedArgs(NAME, () => {
  const values = exampleArgs({
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    workers: { type: 'string', default: String(DEFAULT_WORKERS) },
    'expectations-timeout': { type: 'string' },
    'install-crd': { type: 'boolean', default: false },
  });
  const workers = Number(values.workers);
  if (values.workers.trim() === '' || !Number.isFinite(workers))
    throw new TypeError(`--workers must be a number, got ${JSON.stringify(values.workers)}`);
  const timeout = values['expectations-timeout'];
  const expectationsTimeoutMs = timeout === undefined ? undefined : Number(timeout);
  if (timeout !== undefined && timeout.trim() === '')
    throw new TypeError(`--expectations-timeout must be a number of ms, got ${JSON.stringify(timeout)}`);
  const controllerOptions = {
    ...(values.namespace === undefined ? {} : { namespace: values.namespace }),
    workers,
    ...(expectationsTimeoutMs === undefined ? {} : { expectationsTimeoutMs }),
  };
  resolveOptions(controllerOptions);
  return {
    kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG,
    installCrd: values['install-crd'],
    options: controllerOptions,
    managerOptions: exampleManagerOptions(values, values.namespace ?? 'default'),
  };
});

const scope = options.namespace === undefined ? 'every namespace' : `namespace ${options.namespace}`;
const target = await connectExample(NAME, kubeconfig, `; keeps PodSets' pods in ${scope}`, { ownerGC: true });

if (target.cluster !== undefined || installCrd) await installExampleCrd(NAME, target, podSetCrd(), PODSET);

runExampleManager(
  NAME,
  target,
  {
    connection: target.kubeConfig,
    name: NAME,
    controllers: [replicaSetController(options)],
    ...managerOptions,
  },
  {
    play: runPodSetWorkload,
    done: 'workload: done; still watching, Ctrl-C to stop',
  },
);
