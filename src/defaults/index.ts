/**
 * Every default number of rxkube's public options, in one frozen object, read from the constants the code itself
 * uses, so the object cannot drift from the behaviour.
 */
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_RETRY,
  DEFAULT_SPAM_BURST,
  DEFAULT_SPAM_OBJECTS,
  DEFAULT_SPAM_QPS,
  DEFAULT_WRITE_TIMEOUT_MS,
} from '../client/index.js';
import type { ResourceClient } from '../client/index.js';
import {
  DEFAULT_AGING_AFTER_MS,
  DEFAULT_AGING_EVERY,
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_BURST,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_QPS,
} from '../controller/index.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LEADER_JITTER_FACTOR,
} from '../leader/index.js';
import {
  DEFAULT_CHECK_TIMEOUT_MS,
  DEFAULT_HEALTH_PORT,
  DEFAULT_INFORMER_FAILURE_THRESHOLD_MS,
  DEFAULT_METRICS_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
} from '../manager/index.js';
import { DEFAULT_OWN_WRITES_RETAIN_MS, DEFAULT_READ_YOUR_WRITES_WAIT_MS } from '../controller/own-writes/index.js';
import { deepFreeze } from '../objects/index.js';
import { DEFAULT_SHARD_RANGES, DELETED_KEYS_REMEMBERED } from '../shards/index.js';
import {
  BACKOFF_RESET_MS,
  DEFAULT_LIST_TIMEOUT_MS,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  DEFAULT_WATCH_BACKOFF,
  DEFAULT_WATCH_IDLE_TIMEOUT_MS,
} from '../watch/index.js';

/**
 * The defaults of rxkube's options, by area, named as the options they fill in (times in milliseconds). The table
 * in `docs/design.md` ("Defaults") lists each with the option that overrides it.
 *
 * ```ts
 * import { defaults, reconcile } from 'rxkube';
 *
 * // Twice the default drain, whatever the default is.
 * reconcile(() => undefined, { drainTimeout: 2 * defaults.reconcile.drainTimeout });
 * ```
 *
 * # Guarantees
 * - Deep-frozen: reading it is safe, writing to it throws in strict mode and changes nothing.
 * - Each value is the one the code uses when the option is left out (read from the same constant).
 *
 * # Caveats
 * - Changing a default means passing the option; there is no global setting.
 */
export const defaults = deepFreeze({
  /** `listWatch`, `informer`, `informerFactory().for()`. */
  watch: {
    /** Objects per list page (`pageSize`). */
    pageSize: DEFAULT_PAGE_SIZE,
    /** How long one list page or discovery request may take (`listTimeout`): kube-apiserver's 60 s plus a margin. */
    listTimeout: DEFAULT_LIST_TIMEOUT_MS,
    /** A watch asks the server for `timeoutSeconds` in [minWatchTimeout, 2 × minWatchTimeout] (`minWatchTimeout`), ms. */
    minWatchTimeout: DEFAULT_MIN_WATCH_TIMEOUT_MS,
    /**
     * A watch that has had a bookmark and is silent this long is dead (`idleTimeout`), ms: kube-apiserver's
     * bookmark period (about 60 s) plus 30 s.
     */
    idleTimeout: DEFAULT_WATCH_IDLE_TIMEOUT_MS,
    /** Backoff after a failed list or watch (`backoff`): `random() · min(capMs, baseMs · factor^n)`. */
    backoff: { ...DEFAULT_WATCH_BACKOFF },
    /** Healthy watching after which the backoff starts over. */
    backoffReset: BACKOFF_RESET_MS,
  },
  /** The `reconcile` operator (and `controller()`, and every host's `context.reconcile`). */
  reconcile: {
    /** How long a stop waits for runs in flight (`drainTimeout`). */
    drainTimeout: DEFAULT_DRAIN_TIMEOUT_MS,
    /** The per-key retry delay, `baseMs · 2^failures` capped at `maxMs` (`rateLimiters.exponential()`). */
    rateLimiter: {
      /** The first retry's delay, ms. */
      baseMs: DEFAULT_BASE_DELAY_MS,
      /** The cap of the delay, ms. */
      maxMs: DEFAULT_MAX_DELAY_MS,
    },
    /** The token bucket every failure retry takes from (`rateLimiters.tokenBucket()`, `globalRateLimiter`). */
    globalRateLimiter: {
      /** Tokens added per second. */
      qps: DEFAULT_QPS,
      /** Tokens the bucket holds when full. */
      burst: DEFAULT_BURST,
    },
    /** How waiting lets a key through whatever the priorities (`aging`). */
    aging: {
      /** ms a key waits ready before it is overdue. */
      after: DEFAULT_AGING_AFTER_MS,
      /** While a key is overdue, one start in this many goes to the key ready longest. */
      every: DEFAULT_AGING_EVERY,
    },
  },
  /** Read-your-own-writes: `ownWrites.readYourWrites`, `ownWrites.ledger`, and `controller()`'s `readYourWrites` option. */
  readYourWrites: {
    /** How long a run waits at most for its caches to show its key's own writes (`maxWait`). */
    maxWait: DEFAULT_READ_YOUR_WRITES_WAIT_MS,
    /** How long a write is remembered after its answer (`ownWrites.ledger({ retain })`). */
    retain: DEFAULT_OWN_WRITES_RETAIN_MS,
  },
  /** `resourceClient`. */
  client: {
    /** Objects per page when `list()` reads every page (`pageSize`). */
    pageSize: DEFAULT_PAGE_SIZE,
    /** `mutate`'s conflict retries (`retry`): client-go's `retry.DefaultRetry`. */
    // `satisfies` names the type, so the emitted declaration says `ResourceClient.RetryPolicy`, not an inline import().
    retry: DEFAULT_RETRY satisfies ResourceClient.RetryPolicy,
    /** How long one write may go unanswered (`writeTimeout`): kube-apiserver's 60 s plus a margin. */
    writeTimeout: DEFAULT_WRITE_TIMEOUT_MS,
  },
  /** `eventRecorder`. */
  events: {
    /** The spam filter per object (`spamFilter`), client-go's. */
    spamFilter: {
      /** Events an object may have at once before the filter turns occurrences away. */
      burst: DEFAULT_SPAM_BURST,
      /** Events per second an object earns back: one per 5 minutes. */
      qps: DEFAULT_SPAM_QPS,
      /** Objects the filter remembers. */
      maxObjects: DEFAULT_SPAM_OBJECTS,
    },
  },
  /** `leaderElection` (and a manager's `leaderElection`). */
  leaderElection: {
    /** `leaseDuration`. */
    leaseDuration: DEFAULT_LEASE_DURATION_MS,
    /** `renewDeadline`. */
    renewDeadline: DEFAULT_RENEW_DEADLINE_MS,
    /** `retryPeriod`. */
    retryPeriod: DEFAULT_RETRY_PERIOD_MS,
    /** A candidate tries every `retryPeriod · (1 + jitterFactor · random())` (client-go's `JitterFactor`; fixed). */
    jitterFactor: LEADER_JITTER_FACTOR,
  },
  /** `shardLeases` (and a manager's `sharding`); the Lease timings are `leaderElection`'s. */
  sharding: {
    /** `ranges`: how many hash ranges the key space is cut into. */
    ranges: DEFAULT_SHARD_RANGES,
    /** How many deleted keys' uids a sharded controller remembers, so their last run happens in their range. */
    deletedKeysRemembered: DELETED_KEYS_REMEMBERED,
  },
  /** `manager`. */
  manager: {
    /** `shutdownTimeout`: the drain on a graceful stop. */
    shutdownTimeout: DEFAULT_SHUTDOWN_TIMEOUT_MS,
    /** `metrics.port`. */
    metricsPort: DEFAULT_METRICS_PORT,
    /** `health.port`. */
    healthPort: DEFAULT_HEALTH_PORT,
    /** `health.informerFailureThreshold`: how long an informer may fail before `/readyz` does. */
    informerFailureThreshold: DEFAULT_INFORMER_FAILURE_THRESHOLD_MS,
    /** `health.checkTimeout`: how long one custom check may take. */
    checkTimeout: DEFAULT_CHECK_TIMEOUT_MS,
  },
});
