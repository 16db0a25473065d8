/**
 * Options of `leaderElection`: client-go's defaults and its validation, with the reason in every error.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Observable, SchedulerLike } from 'rxjs';
import { monotonicScheduler } from '../clock/index.js';
import type { LeaderElectionOptions, LeaderEvent } from './types.js';
import { printWarningOnce, type WarningHandler } from '../transport/index.js';

/** client-go's `LeaseDuration` default (core components): 15 s. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** client-go's `RenewDeadline` default: 10 s. */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** client-go's `RetryPeriod` default: 2 s. */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's `JitterFactor`: a candidate that is not leading waits `retryPeriod · (1 + 1.2 · random)` between tries. */
export const LEADER_JITTER_FACTOR = 1.2;

/** The options with every default filled in; internal. */
export interface ResolvedLeaderOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly onLost: 'stop' | 'exit';
  readonly exit: (code: number) => void;
  readonly stop$: Observable<unknown> | undefined;
  readonly onEvent: ((event: LeaderEvent) => void) | undefined;
  readonly onWarning: WarningHandler;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Fills the defaults in and checks what client-go's `NewLeaderElector` checks (`leaseDuration > renewDeadline >
 * retryPeriod · 1.2`, all positive, a non-empty identity), plus what the Lease itself needs: a whole number of
 * seconds for `leaseDuration`, a valid namespace and name.
 */
export function resolveLeaderOptions(options: LeaderElectionOptions): ResolvedLeaderOptions {
  const fail = (message: string): never => {
    throw new RangeError(`leaderElection: ${message}`);
  };
  if (typeof options !== 'object' || options === null)
    throw new TypeError('leaderElection: options { namespace, name } are required');
  const { namespace, name } = options;
  if (typeof namespace !== 'string' || namespace.length > 63 || !DNS1123_LABEL.test(namespace)) {
    fail(`namespace must be a DNS-1123 label (lower case alphanumerics and '-'), got ${JSON.stringify(namespace)}`);
  }
  if (typeof name !== 'string' || name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    fail(`name must be a DNS-1123 subdomain (lower case alphanumerics, '-' and '.'), got ${JSON.stringify(name)}`);
  }
  const identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  if (typeof identity !== 'string' || identity === '')
    fail('identity must be a non-empty string (it is written as holderIdentity)');
  const leaseDuration = duration('leaseDuration', options.leaseDuration, DEFAULT_LEASE_DURATION_MS, fail);
  const renewDeadline = duration('renewDeadline', options.renewDeadline, DEFAULT_RENEW_DEADLINE_MS, fail);
  const retryPeriod = duration('retryPeriod', options.retryPeriod, DEFAULT_RETRY_PERIOD_MS, fail);
  if (leaseDuration % 1000 !== 0)
    fail(`leaseDuration must be a whole number of seconds (the Lease stores seconds), got ${leaseDuration} ms`);
  if (!(leaseDuration > renewDeadline)) {
    fail(
      `leaseDuration (${leaseDuration} ms) must be greater than renewDeadline (${renewDeadline} ms), so the holder stops before anyone may take over`,
    );
  }
  if (!(renewDeadline > retryPeriod * LEADER_JITTER_FACTOR)) {
    fail(
      `renewDeadline (${renewDeadline} ms) must be greater than retryPeriod × ${LEADER_JITTER_FACTOR} (${retryPeriod * LEADER_JITTER_FACTOR} ms)`,
    );
  }
  const onLost = options.onLost ?? 'stop';
  if (onLost !== 'stop' && onLost !== 'exit') fail(`onLost must be 'stop' or 'exit', got ${JSON.stringify(onLost)}`);
  for (const key of ['random', 'exit', 'onEvent', 'onWarning'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function')
      throw new TypeError(`leaderElection: ${key} must be a function`);
  }
  return {
    namespace,
    name,
    identity,
    leaseDuration,
    renewDeadline,
    retryPeriod,
    onLost,
    scheduler: options.scheduler ?? monotonicScheduler,
    random: options.random ?? Math.random,
    exit: options.exit ?? ((code) => process.exit(code)),
    stop$: options.stop$,
    onEvent: options.onEvent,
    onWarning: options.onWarning ?? printWarningOnce,
  };
}

function duration(key: string, value: number | undefined, fallback: number, fail: (message: string) => never): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || !(value > 0))
    fail(`${key} must be a number of ms > 0, got ${String(value)}`);
  return value;
}
