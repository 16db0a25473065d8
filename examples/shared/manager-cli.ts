/**
 * What every example's `main.ts` shares to run under the manager: controller-runtime's command-line flags (bind
 * addresses, leader election and its timings, the shutdown timeout), the manager options they make, and a run that
 * prints the manager's milestones, plays the demo workload on the embedded cluster and exits as a controller does.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { fromEvent, take } from 'rxjs';
import { manager, type HealthOptions, type ManagerOptions } from '../../src/index.js';
import { CACHE_DIGEST_ENV, withCacheDigests } from './cache-digest.js';
import type { ExampleTarget } from './cli.js';
import { describeError, exampleLogger, LOG_FLAGS, type LogFlagValues } from './log-format.js';

type ListenOptions = Pick<HealthOptions, 'host' | 'port'>;

/**
 * The manager's flags, for `node:util` `parseArgs`, with controller-runtime's names where it has them:
 * - `--metrics-bind-address` and `--health-probe-bind-address`: `host:port`, `:port` for every interface, port 0 for
 *   any free one, `0` for no server at all (default `127.0.0.1:8080` and `127.0.0.1:8081`);
 * - `--leader-elect` (default on; `--no-leader-elect` turns it off), `--leader-elect-resource-namespace` (the Lease's
 *   namespace; each example has its default), `--identity`, and `--lease-duration`, `--renew-deadline`,
 *   `--retry-period` in ms;
 * - `--shard-ranges <n>`: run sharded, active beside the other replicas, each reconciling the keys of the hash ranges
 *   it holds (the manager's `sharding`; no leader election then), its Leases in the Lease namespace, with the same
 *   `--identity` and timings; `--shard-hash uid|namespace` (default `uid`) says what is hashed. Hashing uids, a
 *   controller written by hand must hand its primary informer to `context.shards.primary` (replica-set does;
 *   `controller({ context })` does it by itself), or its keys never open;
 * - `--shutdown-timeout` (ms): how long in-flight reconciles may drain;
 * - `--stop-on-stdin-eof`: stop gracefully when stdin ends (test harnesses hold it open as a lifeline);
 * - `--min-watch-timeout`: the informers' `minWatchTimeout`, ms, or `server` (no `timeoutSeconds`: kube-apiserver's
 *   `--min-request-timeout` ends each watch); default client-go's 5 minutes.
 */
export const MANAGER_FLAGS = {
  'metrics-bind-address': { type: 'string', default: '127.0.0.1:8080' },
  'health-probe-bind-address': { type: 'string', default: '127.0.0.1:8081' },
  'leader-elect': { type: 'boolean', default: true },
  'leader-elect-resource-namespace': { type: 'string' },
  identity: { type: 'string' },
  'lease-duration': { type: 'string' },
  'renew-deadline': { type: 'string' },
  'retry-period': { type: 'string' },
  'shard-ranges': { type: 'string' },
  'shard-hash': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'stop-on-stdin-eof': { type: 'boolean', default: false },
  'min-watch-timeout': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

type FlagValue<O> = O extends { type: 'boolean' } ? boolean : string;

/** The values `parseArgs` gives for {@link MANAGER_FLAGS}. */
export type ManagerFlagValues = { readonly [K in keyof typeof MANAGER_FLAGS]?: FlagValue<(typeof MANAGER_FLAGS)[K]> };

/**
 * Parses the command line with the example's own `options`, {@link MANAGER_FLAGS} and the logging flags
 * (`--log-format text|json`, `--log-level`, `--log-stacks`; see `exampleLogger`): strict (an unknown flag throws),
 * `--no-<flag>` allowed. Call it inside {@link checkedArgs}.
 */
export function exampleArgs<O extends NonNullable<ParseArgsConfig['options']>>(options: O) {
  return parseArgs({ options: { ...options, ...MANAGER_FLAGS, ...LOG_FLAGS }, allowNegative: true, strict: true })
    .values;
}

/**
 * {@link managerFlagOptions} and the manager's logger the logging flags ask for: human lines on a terminal (or with
 * `--log-format text`), the manager's JSON lines otherwise.
 */
export function exampleManagerOptions(
  values: ManagerFlagValues & LogFlagValues,
  leaseNamespace: string,
): Pick<
  ManagerOptions,
  'metrics' | 'health' | 'leaderElection' | 'sharding' | 'shutdownTimeout' | 'stop$' | 'logger' | 'informers'
> {
  return { ...managerFlagOptions(values, leaseNamespace), logger: exampleLogger(values) };
}

/**
 * Runs `read` (which parses and checks the command line); anything it throws prints `<name>: <why>` on stderr and
 * exits with code 2 before anything starts.
 */
export function checkedArgs<R>(name: string, read: () => R): R {
  try {
    return read();
  } catch (error) {
    console.error(`${name}: ${describeError(error)}`);
    process.exit(2);
  }
}

/**
 * The manager options the flags say: metrics, probes, leader election (its Lease in `--leader-elect-resource-namespace`,
 * else `leaseNamespace`), the shutdown timeout and the stdin lifeline.
 *
 * # Guarantees
 * - Throws a `TypeError` naming the flag for a bind address that is not `host:port`, `:port` or `0`, for a
 *   duration that is not a number of ms >= 0, and for a `--min-watch-timeout` under 1000 ms that is not `server`;
 *   the manager itself checks ports and the timings against each other.
 */
export function managerFlagOptions(
  values: ManagerFlagValues,
  leaseNamespace: string,
): Pick<
  ManagerOptions,
  'metrics' | 'health' | 'leaderElection' | 'sharding' | 'shutdownTimeout' | 'stop$' | 'informers'
> {
  const minWatchTimeout = values['min-watch-timeout'];
  const watchTimeout =
    minWatchTimeout === undefined || minWatchTimeout === 'server'
      ? minWatchTimeout
      : milliseconds('min-watch-timeout', minWatchTimeout);
  if (typeof watchTimeout === 'number' && watchTimeout < 1000)
    throw new TypeError(
      `--min-watch-timeout must be at least 1000 ms or server, got ${JSON.stringify(minWatchTimeout)}`,
    );
  const timings = {
    leaseDuration: milliseconds('lease-duration', values['lease-duration']),
    renewDeadline: milliseconds('renew-deadline', values['renew-deadline']),
    retryPeriod: milliseconds('retry-period', values['retry-period']),
  };
  const shutdownTimeout = milliseconds('shutdown-timeout', values['shutdown-timeout']);
  const given = Object.fromEntries(Object.entries(timings).filter(([, ms]) => ms !== undefined));
  const namespace = values['leader-elect-resource-namespace'] ?? leaseNamespace;
  const sharding = shardingFlags(values);
  return {
    metrics: bindAddress(
      'metrics-bind-address',
      values['metrics-bind-address'] ?? MANAGER_FLAGS['metrics-bind-address'].default,
    ),
    health: bindAddress(
      'health-probe-bind-address',
      values['health-probe-bind-address'] ?? MANAGER_FLAGS['health-probe-bind-address'].default,
    ),
    leaderElection:
      values['leader-elect'] === false || sharding !== undefined
        ? false
        : { namespace, ...(values.identity ? { identity: values.identity } : {}), ...given },
    ...(sharding === undefined
      ? {}
      : { sharding: { namespace, ...sharding, ...(values.identity ? { identity: values.identity } : {}), ...given } }),
    ...(shutdownTimeout === undefined ? {} : { shutdownTimeout }),
    ...(values['stop-on-stdin-eof'] ? { stop$: fromEvent(process.stdin.resume(), 'end').pipe(take(1)) } : {}),
    ...(watchTimeout === undefined ? {} : { informers: { minWatchTimeout: watchTimeout } }),
  };
}

/** `--shard-ranges` and `--shard-hash`: the manager's `sharding`, less its namespace and timings; none without them. */
function shardingFlags(values: ManagerFlagValues): { ranges: number; hash: 'uid' | 'namespace' } | undefined {
  const text = values['shard-ranges'];
  const hash = values['shard-hash'] ?? 'uid';
  if (hash !== 'uid' && hash !== 'namespace')
    throw new TypeError(`--shard-hash must be uid or namespace, got ${JSON.stringify(hash)}`);
  if (text === undefined) {
    if (values['shard-hash'] !== undefined) throw new TypeError('--shard-hash needs --shard-ranges');
    return undefined;
  }
  const ranges = Number(text);
  if (text.trim() === '' || !Number.isInteger(ranges) || ranges < 1)
    throw new TypeError(`--shard-ranges must be a whole number of ranges >= 1, got ${JSON.stringify(text)}`);
  return { ranges, hash };
}

/** `host:port` as controller-runtime's bind-address flags take it: `:8080` is every interface, `0` no server. */
function bindAddress(flag: string, value: string): ListenOptions | false {
  if (value === '0') return false;
  const match = /^(.*):(\d+)$/.exec(value);
  if (match === null) throw new TypeError(`--${flag} must be host:port, :port or 0, got ${JSON.stringify(value)}`);
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
  return { ...(host === '' ? {} : { host }), port: Number(match[2]) };
}

function milliseconds(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (value.trim() === '' || !Number.isFinite(ms) || ms < 0)
    throw new TypeError(`--${flag} must be a number of milliseconds, got ${JSON.stringify(value)}`);
  return ms;
}

/** The embedded cluster's demo workload of an example. */
export interface ExampleWorkload {
  /** Plays the workload; resolves when done, stops early between steps once `signal` is aborted. */
  readonly play: (kubeConfig: KubeConfig, narrate: (line: string) => void, signal: AbortSignal) => Promise<void>;
  /** Printed when it is done and the controller keeps watching. */
  readonly done: string;
}

/**
 * Runs `options` (the example's manager) until it stops, printing `<name>: metrics on …, probes on …`,
 * `<name>: leading` / `not leading` (sharded: `<name>: runs ranges 0,1,… of <n>` when they change) and
 * `<name>: stopping (…)` on stdout, while the manager's logs go to stderr
 * (human lines on a terminal, JSON lines otherwise; see `exampleManagerOptions`). Errors are one line with their
 * causes. On the embedded cluster it plays `workload` too, and aborts it when the manager stops.
 *
 * # Guarantees
 * - After SIGINT/SIGTERM the manager drains, flushes Events, releases the Lease and exits itself (0 after a clean
 *   drain, 1 otherwise; a second signal exits 1 at once). After `--stop-on-stdin-eof`'s end, this exits the same way.
 * - With `RXKUBE_CACHE_DIGEST=1` in the environment, `/metrics` also serves a digest of every informer cache
 *   (`withCacheDigests`), for the soak to compare with the server.
 * - Options the manager refuses print `<name>: <why>` and exit 2; a manager that fails prints why and exits 1.
 *   The embedded cluster is stopped before every exit this makes.
 */
export function runExampleManager(
  name: string,
  target: ExampleTarget,
  options: ManagerOptions,
  workload?: ExampleWorkload,
): void {
  const exit = (code: number): void =>
    void (target.cluster?.stop() ?? Promise.resolve()).then(() => process.exit(code));
  let manager$;
  try {
    manager$ = manager(process.env[CACHE_DIGEST_ENV] === '1' ? withCacheDigests(options) : options);
  } catch (error) {
    console.error(`${name}: ${describeError(error)}`);
    exit(2);
    return;
  }
  const workloadAbort = new AbortController();
  let clean = false;
  let ranges = '';
  manager$.subscribe({
    next: (event) => {
      if (event.type === 'started') {
        const served = [
          ...(event.metrics ? [`metrics on ${event.metrics.url}/metrics`] : []),
          ...(event.health ? [`probes on ${event.health.url}/healthz and /readyz`] : []),
        ];
        console.log(`${name}: ${served.length > 0 ? served.join(', ') : 'started (no metrics or probe server)'}`);
      } else if (event.type === 'leading') {
        console.log(event.leading ? `${name}: leading` : `${name}: not leading`);
      } else if (event.type === 'shards' && event.state.open.join(',') !== ranges) {
        ranges = event.state.open.join(',');
        console.log(`${name}: runs ranges ${ranges || 'none'} of ${event.state.ranges}`);
      } else if (event.type === 'stopping') {
        workloadAbort.abort();
        console.log(`${name}: stopping (${event.reason}; draining in-flight reconciles)`);
      } else if (event.type === 'stopped') {
        clean = event.clean;
      }
    },
    error: (error: unknown) => {
      console.error(`${name}: ${describeError(error)}`);
      exit(1);
    },
    // After a signal the manager has exited the process already (0 after a clean drain); after stdin's end, we do.
    complete: () => exit(clean ? 0 : 1),
  });
  if (target.cluster && workload) {
    workload
      .play(target.kubeConfig, (line) => console.log(line), workloadAbort.signal)
      .then(
        () => {
          if (!workloadAbort.signal.aborted) console.log(workload.done);
        },
        (error: unknown) => console.error(`workload: failed: ${describeError(error)}`),
      );
  }
}
