/**
 * `npm start` (or `npm run example -- pod-logger`): the pod logger at work, under the manager (leader election,
 * `/metrics`, `/healthz`, `/readyz`, JSON logs on stderr, graceful stop).
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster and plays a small simulated workload against it.
 * - `npm start -- --kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead
 *   (no workload; it only watches).
 * - `--namespace <ns>` picks the namespace (default `default`); the Lease `pod-logger` lives there too.
 * - `--metrics-bind-address` (default `127.0.0.1:8080`) and `--health-probe-bind-address` (default
 *   `127.0.0.1:8081`), controller-runtime's flags: `host:port`, `:port` for all interfaces, port 0 for any free one.
 * - `--no-leader-elect` turns leader election off; `--lease-duration`, `--renew-deadline`, `--retry-period` (ms) and
 *   `--identity` tune it; `--shutdown-timeout` (ms) bounds the drain.
 * - `--stop-on-stdin-eof`: stop gracefully when stdin ends (test harnesses hold it open as a lifeline).
 * Ctrl-C (SIGINT) or SIGTERM drains in-flight reconciles, releases the Lease and exits 0; a second signal exits at
 * once.
 * @module
 */
import { parseArgs } from 'node:util';
import { fromEvent, take } from 'rxjs';
import { manager } from '../../src/index.js';
import { connectExample } from '../shared/cli.js';
import { podLoggerController } from './pod-logger.js';
import { runDemoWorkload } from './workload.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string', default: 'default' },
    'metrics-bind-address': { type: 'string', default: '127.0.0.1:8080' },
    'health-probe-bind-address': { type: 'string', default: '127.0.0.1:8081' },
    'leader-elect': { type: 'boolean', default: true },
    identity: { type: 'string' },
    'lease-duration': { type: 'string' },
    'renew-deadline': { type: 'string' },
    'retry-period': { type: 'string' },
    'shutdown-timeout': { type: 'string' },
    'stop-on-stdin-eof': { type: 'boolean', default: false },
  },
  allowNegative: true,
  strict: true,
});
const namespace = values.namespace ?? 'default';
const kubeconfigPath = values.kubeconfig ?? process.env.KUBECONFIG;

/** `host:port` as controller-runtime's bind-address flags take it (`:8080` is every interface). */
function bindAddress(flag: string, value: string): { host?: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(value);
  if (match === null) throw new TypeError(`--${flag} must be host:port or :port, got ${JSON.stringify(value)}`);
  return { ...(match[1] === '' ? {} : { host: match[1]!.replace(/^\[(.*)\]$/, '$1') }), port: Number(match[2]) };
}

function milliseconds(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new TypeError(`--${flag} must be a number of milliseconds, got ${JSON.stringify(value)}`);
  return ms;
}

const { kubeConfig, cluster } = await connectExample('pod-logger', kubeconfigPath, `, namespace ${namespace}`);

const workloadAbort = new AbortController();
const leaseTimings = {
  leaseDuration: milliseconds('lease-duration', values['lease-duration']),
  renewDeadline: milliseconds('renew-deadline', values['renew-deadline']),
  retryPeriod: milliseconds('retry-period', values['retry-period']),
};
let clean = false;

manager({
  connection: kubeConfig,
  name: 'pod-logger',
  controllers: [podLoggerController({ namespace })],
  leaderElection: values['leader-elect'] === false ? false : {
    namespace,
    ...(values.identity ? { identity: values.identity } : {}),
    ...Object.fromEntries(Object.entries(leaseTimings).filter(([, ms]) => ms !== undefined)),
  },
  metrics: bindAddress('metrics-bind-address', values['metrics-bind-address'] ?? ''),
  health: bindAddress('health-probe-bind-address', values['health-probe-bind-address'] ?? ''),
  ...(values['shutdown-timeout'] === undefined ? {} : { shutdownTimeout: milliseconds('shutdown-timeout', values['shutdown-timeout'])! }),
  ...(values['stop-on-stdin-eof'] ? { stop$: fromEvent(process.stdin.resume(), 'end').pipe(take(1)) } : {}),
}).subscribe({
  next: (event) => {
    if (event.type === 'started') {
      console.log(`pod-logger: metrics on ${event.metrics!.url}/metrics, probes on ${event.health!.url}/healthz and /readyz`);
    } else if (event.type === 'leading') {
      console.log(event.leading ? 'pod-logger: leading' : 'pod-logger: not leading');
    } else if (event.type === 'stopping') {
      workloadAbort.abort();
      console.log('pod-logger: stopping (draining in-flight reconciles)');
    } else if (event.type === 'stopped') {
      clean = event.clean;
    }
  },
  error: (error: unknown) => {
    console.error(`pod-logger: ${error instanceof Error ? error.message : String(error)}`);
    void (cluster?.stop() ?? Promise.resolve()).then(() => process.exit(1));
  },
  // After a signal the manager exits the process itself (0 after a clean drain); after stdin's end, we do.
  complete: () => void (cluster?.stop() ?? Promise.resolve()).then(() => process.exit(clean ? 0 : 1)),
});

if (cluster) {
  runDemoWorkload(kubeConfig, namespace, (line) => console.log(line), workloadAbort.signal).then(
    () => { if (!workloadAbort.signal.aborted) console.log('workload: done; still watching, Ctrl-C to stop'); },
    (error: unknown) => console.error(`workload: failed: ${String(error)}`),
  );
}
