/**
 * The manager's options: defaults (controller-runtime's where it has them) and validation at call time.
 */
import { readFileSync } from 'node:fs';
import type { Observable, SchedulerLike } from 'rxjs';
import { Registry } from 'prom-client';
import type { EventRecorderOptions } from '../client/events/index.js';
import { monotonicScheduler } from '../clock/index.js';
import type { InformerFactoryOptions } from '../informer/index.js';
import type { LeaderElectionOptions } from '../leader/index.js';
import type { Connection } from '../transport/index.js';
import { jsonLogger, type ManagerLogger } from './logging/index.js';
import type { ControllerDefinition } from '../controller/context/index.js';
import type { HealthCheck, ManagerOptions } from './types.js';
import type { ShardingSettings } from './sharding.js';
import { DEFAULT_SHARD_RANGES, shardLeases } from '../shards/index.js';

/** controller-runtime's `GracefulShutdownTimeout`. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;
/** The metrics port controller-runtime projects have used since kubebuilder v1. */
export const DEFAULT_METRICS_PORT = 8080;
/** kubebuilder's health probe port. */
export const DEFAULT_HEALTH_PORT = 8081;
/** How long an informer may fail before `/readyz` says so: one capped watch backoff (30 s). */
export const DEFAULT_INFORMER_FAILURE_THRESHOLD_MS = 30_000;
/** Time limit of one custom check. */
export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

/** Where the pod's namespace is mounted, as controller-runtime reads it for the Lease. */
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Options with every default filled in; internal. */
export interface ManagerSettings {
  readonly connection: Connection;
  readonly name: string;
  readonly controllers: readonly ControllerDefinition[];
  readonly leader:
    | (Omit<LeaderElectionOptions, 'scheduler' | 'stop$' | 'exit'> & { readonly standby: boolean })
    | undefined;
  readonly sharding: (ShardingSettings & { readonly identity: string | undefined }) | undefined;
  readonly metrics:
    | {
        readonly serve: boolean;
        readonly host: string | undefined;
        readonly port: number;
        readonly registry: Registry | undefined;
        readonly processMetrics: boolean;
      }
    | undefined;
  readonly health: {
    readonly serve: boolean;
    readonly host: string | undefined;
    readonly port: number;
    readonly readyChecks: Readonly<Record<string, HealthCheck>>;
    readonly healthChecks: Readonly<Record<string, HealthCheck>>;
    readonly failureThreshold: number;
    readonly checkTimeout: number;
  };
  readonly shutdownTimeout: number;
  readonly logger: ManagerLogger;
  readonly redact: readonly string[];
  readonly signals: Observable<string> | undefined;
  readonly stop$: Observable<unknown> | undefined;
  readonly events: Partial<EventRecorderOptions> | undefined;
  readonly informers: InformerFactoryOptions;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly exit: (code: number) => void;
}

/**
 * Validates `options` and fills in the defaults. Throws a `TypeError` or `RangeError` naming the bad option, so a
 * misconfigured manager fails where it is built, never later.
 */
export function resolveManagerOptions(
  options: ManagerOptions,
  processSignals: () => Observable<string>,
): ManagerSettings {
  const fail = (message: string): never => {
    throw new RangeError(`manager: ${message}`);
  };
  if (typeof options !== 'object' || options === null)
    throw new TypeError('manager: options { connection, name, controllers } are required');
  if (typeof options.connection !== 'object' || options.connection === null)
    throw new TypeError('manager: connection (a KubeConfig or a Transport) is required');
  const { name } = options;
  if (typeof name !== 'string' || name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    fail(
      `name must be a DNS-1123 subdomain (it names the Lease and the events' reporter), got ${JSON.stringify(name)}`,
    );
  }
  if (!Array.isArray(options.controllers))
    throw new TypeError('manager: controllers must be an array of { name, start(context) }');
  const seen = new Set<string>();
  for (const [i, definition] of options.controllers.entries()) {
    if (typeof definition !== 'object' || definition === null || typeof definition.start !== 'function') {
      throw new TypeError(`manager: controllers[${i}] must be { name, start(context) }`);
    }
    if (typeof definition.name !== 'string' || definition.name === '')
      fail(`controllers[${i}].name must be a non-empty string`);
    if (seen.has(definition.name))
      fail(
        `two controllers are named ${JSON.stringify(definition.name)}; names label their metrics and must be unique`,
      );
    seen.add(definition.name);
  }
  const shutdownTimeout = duration(
    'shutdownTimeout',
    options.shutdownTimeout,
    DEFAULT_SHUTDOWN_TIMEOUT_MS,
    (v) => v >= 0,
    fail,
  );
  const metricsOptions = options.metrics === false ? undefined : (options.metrics ?? {});
  const healthOptions = options.health === false ? { serve: false } : { serve: true, ...options.health };
  const metricsPort =
    metricsOptions === undefined ? 0 : port('metrics.port', metricsOptions.port, DEFAULT_METRICS_PORT, fail);
  const healthPort = port('health.port', healthOptions.port, DEFAULT_HEALTH_PORT, fail);
  const servesMetrics = metricsOptions !== undefined && metricsOptions.serve !== false;
  if (
    servesMetrics &&
    healthOptions.serve &&
    metricsPort !== 0 &&
    metricsPort === healthPort &&
    metricsOptions.host === healthOptions.host
  ) {
    fail(`metrics and health cannot both listen on port ${metricsPort}`);
  }
  if (metricsOptions?.registry !== undefined && !(metricsOptions.registry instanceof Registry))
    throw new TypeError('manager: metrics.registry must be a prom-client Registry');
  for (const key of ['readyChecks', 'healthChecks'] as const) {
    for (const [checkName, check] of Object.entries(healthOptions[key] ?? {})) {
      if (typeof check !== 'function') throw new TypeError(`manager: health.${key}.${checkName} must be a function`);
    }
  }
  if (options.random !== undefined && typeof options.random !== 'function')
    throw new TypeError('manager: random must be a function () => number in [0, 1)');
  for (const key of ['exit', 'scheduler'] as const) {
    if (
      options[key] !== undefined &&
      (typeof options[key] !== (key === 'exit' ? 'function' : 'object') || options[key] === null)
    ) {
      throw new TypeError(`manager: ${key} must be a ${key === 'exit' ? 'function' : 'SchedulerLike'}`);
    }
  }
  if (
    options.redact !== undefined &&
    (!Array.isArray(options.redact) || options.redact.some((s) => typeof s !== 'string'))
  ) {
    throw new TypeError('manager: redact must be an array of strings');
  }
  return {
    connection: options.connection,
    name,
    controllers: options.controllers,
    leader: resolveLeader(options, fail),
    sharding: resolveSharding(options, fail),
    metrics:
      metricsOptions === undefined
        ? undefined
        : {
            serve: servesMetrics,
            host: metricsOptions.host,
            port: metricsPort,
            registry: metricsOptions.registry,
            processMetrics: metricsOptions.processMetrics !== false,
          },
    health: {
      serve: healthOptions.serve,
      host: healthOptions.host,
      port: healthPort,
      readyChecks: healthOptions.readyChecks ?? {},
      healthChecks: healthOptions.healthChecks ?? {},
      failureThreshold: duration(
        'health.informerFailureThreshold',
        healthOptions.informerFailureThreshold,
        DEFAULT_INFORMER_FAILURE_THRESHOLD_MS,
        (v) => v >= 0,
        fail,
      ),
      checkTimeout: duration(
        'health.checkTimeout',
        healthOptions.checkTimeout,
        DEFAULT_CHECK_TIMEOUT_MS,
        (v) => v > 0,
        fail,
      ),
    },
    shutdownTimeout,
    logger: options.logger ?? jsonLogger(),
    redact: options.redact ?? [],
    signals: options.signals === false ? undefined : (options.signals?.source ?? processSignals()),
    stop$: options.stop$,
    events: options.events === false ? undefined : (options.events ?? {}),
    informers: options.informers ?? {},
    scheduler: options.scheduler ?? monotonicScheduler,
    random: options.random ?? Math.random,
    exit: options.exit ?? ((code) => process.exit(code)),
  };
}

function resolveLeader(options: ManagerOptions, fail: (message: string) => never): ManagerSettings['leader'] {
  const election = options.leaderElection;
  if (election === undefined || election === false) return undefined;
  if (typeof election !== 'object' || election === null)
    throw new TypeError('manager: leaderElection must be false or an object');
  const onLost = election.onLost ?? 'exit';
  if (onLost !== 'exit' && onLost !== 'standby')
    fail(`leaderElection.onLost must be 'exit' or 'standby', got ${JSON.stringify(onLost)}`);
  const namespace = election.namespace ?? podNamespace();
  if (namespace === undefined) {
    fail(`leaderElection.namespace is required outside a cluster (no ${SERVICE_ACCOUNT_NAMESPACE} to default it from)`);
  }
  const { onLost: _onLost, ...rest } = election;
  return {
    ...rest,
    namespace: namespace!,
    name: election.name ?? options.name,
    onLost: onLost === 'exit' ? 'exit' : 'stop',
    standby: onLost === 'standby',
  };
}

function resolveSharding(options: ManagerOptions, fail: (message: string) => never): ManagerSettings['sharding'] {
  const sharding = options.sharding;
  if (sharding === undefined || sharding === false) return undefined;
  if (typeof sharding !== 'object' || sharding === null)
    throw new TypeError('manager: sharding must be false or an object');
  const election = options.leaderElection === false ? undefined : options.leaderElection;
  const namespace = sharding.namespace ?? election?.namespace ?? podNamespace();
  if (namespace === undefined) {
    fail(`sharding.namespace is required outside a cluster (no ${SERVICE_ACCOUNT_NAMESPACE} to default it from)`);
  }
  const hash = sharding.hash ?? 'uid';
  if (hash !== 'uid' && hash !== 'namespace')
    fail(`sharding.hash must be 'uid' or 'namespace', got ${JSON.stringify(hash)}`);
  const ranges = sharding.ranges ?? DEFAULT_SHARD_RANGES;
  if (!Number.isInteger(ranges) || ranges < 1 || ranges > 1024)
    fail(`sharding.ranges must be an integer from 1 to 1024, got ${String(ranges)}`);
  const select = sharding.select ?? 'server';
  if (select !== 'server' && select !== 'client')
    fail(`sharding.select must be 'server' or 'client', got ${JSON.stringify(select)}`);
  const controllers = sharding.controllers;
  if (controllers !== undefined) {
    if (!Array.isArray(controllers) || controllers.some((name) => typeof name !== 'string'))
      throw new TypeError('manager: sharding.controllers must be an array of controller names');
    const known = new Set(options.controllers.map((definition) => definition.name));
    const unknown = controllers.filter((name) => !known.has(name));
    if (unknown.length > 0) fail(`sharding.controllers names no controller: ${unknown.join(', ')}`);
  }
  const name = sharding.name ?? options.name;
  // The Lease timings and names are checked as leader election checks them, now rather than at subscription.
  try {
    shardLeases(options.connection, {
      namespace: namespace!,
      name,
      identity: 'check',
      ranges,
      ...(sharding.leaseDuration === undefined ? {} : { leaseDuration: sharding.leaseDuration }),
      ...(sharding.renewDeadline === undefined ? {} : { renewDeadline: sharding.renewDeadline }),
      ...(sharding.retryPeriod === undefined ? {} : { retryPeriod: sharding.retryPeriod }),
    });
  } catch (error) {
    fail(`sharding: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    namespace: namespace!,
    name,
    ranges,
    field: hash === 'uid' ? 'object.metadata.uid' : 'object.metadata.namespace',
    controllers,
    leaseDuration: sharding.leaseDuration,
    renewDeadline: sharding.renewDeadline,
    retryPeriod: sharding.retryPeriod,
    identity: sharding.identity ?? election?.identity,
    select,
  };
}

function podNamespace(): string | undefined {
  try {
    const namespace = readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim();
    return namespace === '' ? undefined : namespace;
  } catch {
    return undefined;
  }
}

function duration(
  key: string,
  value: number | undefined,
  fallback: number,
  ok: (v: number) => boolean,
  fail: (message: string) => never,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value))
    fail(`${key} must be a finite number of ms, got ${String(value)}`);
  return value;
}

function port(key: string, value: number | undefined, fallback: number, fail: (message: string) => never): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    fail(`${key} must be an integer in 0–65535 (0: any free port), got ${String(value)}`);
  return value;
}
