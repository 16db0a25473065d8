/**
 * `defaults`: one frozen object with the default of every public option that has a number, read from the constants
 * the code uses.
 */
import { expect } from 'chai';
import { defaults } from '../../src/index.js';
import { DEFAULT_PAGE_SIZE, DEFAULT_RETRY, DEFAULT_WRITE_TIMEOUT_MS } from '../../src/client/index.js';
import {
  DEFAULT_AGING_AFTER_MS,
  DEFAULT_AGING_EVERY,
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_BURST,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_QPS,
} from '../../src/controller/index.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LEADER_JITTER_FACTOR,
} from '../../src/leader/index.js';
import {
  DEFAULT_CHECK_TIMEOUT_MS,
  DEFAULT_HEALTH_PORT,
  DEFAULT_INFORMER_FAILURE_THRESHOLD_MS,
  DEFAULT_METRICS_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
} from '../../src/manager/index.js';
import { DEFAULT_LIST_TIMEOUT_MS, DEFAULT_WATCH_BACKOFF } from '../../src/watch/index.js';
import {
  DEFAULT_OWN_WRITES_RETAIN_MS,
  DEFAULT_READ_YOUR_WRITES_WAIT_MS,
} from '../../src/controller/own-writes/index.js';

function frozenEverywhere(value: unknown, path = 'defaults'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return [
    ...(Object.isFrozen(value) ? [] : [path]),
    ...Object.entries(value).flatMap(([key, child]) => frozenEverywhere(child, `${path}.${key}`)),
  ];
}

describe('defaults', () => {
  it("is frozen at every depth, so no caller can change another's defaults", () => {
    expect(frozenEverywhere(defaults)).to.deep.equal([]);
    expect(() => {
      (defaults.reconcile as { drainTimeout: number }).drainTimeout = 1;
    }).to.throw(TypeError);
  });

  it('holds the numbers the code uses when an option is left out', () => {
    expect(defaults.watch).to.deep.equal({
      pageSize: DEFAULT_PAGE_SIZE,
      listTimeout: DEFAULT_LIST_TIMEOUT_MS,
      minWatchTimeout: 300_000,
      idleTimeout: 90_000,
      backoff: DEFAULT_WATCH_BACKOFF,
      backoffReset: 120_000,
    });
    expect(defaults.reconcile).to.deep.equal({
      drainTimeout: DEFAULT_DRAIN_TIMEOUT_MS,
      rateLimiter: { baseMs: DEFAULT_BASE_DELAY_MS, maxMs: DEFAULT_MAX_DELAY_MS },
      globalRateLimiter: { qps: DEFAULT_QPS, burst: DEFAULT_BURST },
      aging: { after: DEFAULT_AGING_AFTER_MS, every: DEFAULT_AGING_EVERY },
    });
    expect(defaults.client).to.deep.equal({
      pageSize: DEFAULT_PAGE_SIZE,
      retry: DEFAULT_RETRY,
      writeTimeout: DEFAULT_WRITE_TIMEOUT_MS,
    });
    expect(defaults.readYourWrites).to.deep.equal({
      maxWait: DEFAULT_READ_YOUR_WRITES_WAIT_MS,
      retain: DEFAULT_OWN_WRITES_RETAIN_MS,
    });
    expect(defaults.leaderElection).to.deep.equal({
      leaseDuration: DEFAULT_LEASE_DURATION_MS,
      renewDeadline: DEFAULT_RENEW_DEADLINE_MS,
      retryPeriod: DEFAULT_RETRY_PERIOD_MS,
      jitterFactor: LEADER_JITTER_FACTOR,
    });
    expect(defaults.manager).to.deep.equal({
      shutdownTimeout: DEFAULT_SHUTDOWN_TIMEOUT_MS,
      metricsPort: DEFAULT_METRICS_PORT,
      healthPort: DEFAULT_HEALTH_PORT,
      informerFailureThreshold: DEFAULT_INFORMER_FAILURE_THRESHOLD_MS,
      checkTimeout: DEFAULT_CHECK_TIMEOUT_MS,
    });
  });

  it('states the documented numbers (docs/design.md, Defaults)', () => {
    expect(defaults.watch.backoff).to.deep.equal({ baseMs: 800, factor: 2, capMs: 30_000 });
    expect(defaults.reconcile.rateLimiter).to.deep.equal({ baseMs: 5, maxMs: 1_000_000 });
    expect(defaults.reconcile.globalRateLimiter).to.deep.equal({ qps: 10, burst: 100 });
    expect(defaults.reconcile.aging).to.deep.equal({ after: 30_000, every: 4 });
    expect(defaults.leaderElection).to.include({ leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 });
    expect(defaults.manager).to.include({ metricsPort: 8080, healthPort: 8081, shutdownTimeout: 30_000 });
    expect(defaults.events.spamFilter).to.include({ burst: 25, maxObjects: 4096 });
    expect(defaults.readYourWrites).to.deep.equal({ maxWait: 5_000, retain: 60_000 });
    expect(defaults.client.writeTimeout).to.equal(70_000);
  });
});
