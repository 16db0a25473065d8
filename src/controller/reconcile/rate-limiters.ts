/**
 * Rate limiters for the reconcile queue, as small composable values in the style of client-go's
 * `workqueue.TypedRateLimiter`.
 *
 * A limiter never reads a clock: the caller passes `now` (the scheduler's `now()`), so limiters behave identically
 * in real time and under `TestScheduler.run`.
 */
import { backoffCeiling } from '../../backoff/index.js';
import { describeValue } from '../../error-messages/index.js';

/**
 * Decides how long a key waits before it is retried after a failure (a `{ requeueAfter }` requeue asks no limiter).
 *
 * Anyone can implement it; `reconcile` calls only these two methods. The operator counts each key's failures
 * itself (for `attempt`, `maxRetries` and the events), so a limiter need not report them.
 *
 * # Guarantees expected of implementations
 * - `when` returns a finite delay in milliseconds, `>= 0`, and records one more attempt for `key`.
 * - `forget` clears everything recorded for `key` (called after a success, a drop or a terminal failure).
 *
 * # Caveats
 * - `reconcile` treats a `when` that throws or returns a non-finite or negative number as misbehaving: it uses the
 *   maximum default delay (1000 s) instead and reports the problem on the event (`limiterError`). A `forget` that
 *   throws is ignored (the key merely keeps a longer backoff).
 */
export interface RateLimiter {
  /** Records an attempt for `key` at time `now` (ms) and returns how long to wait before it, in ms. */
  when(key: string, now: number): number;
  /** Forgets all history of `key`. */
  forget(key: string): void;
}

/** Default base delay of `rateLimiters.exponential`: 5 ms, as client-go. */
export const DEFAULT_BASE_DELAY_MS = 5;
/** Default cap of `rateLimiters.exponential`: 1000 s, as client-go. */
export const DEFAULT_MAX_DELAY_MS = 1_000_000;
/** Default refill rate of `rateLimiters.tokenBucket`: 10 per second, as client-go. */
export const DEFAULT_QPS = 10;
/** Default capacity of `rateLimiters.tokenBucket`: 100 tokens, as client-go. */
export const DEFAULT_BURST = 100;

function requireNumber(name: string, value: number, min: number, integer = false): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${String(value)}`);
  }
  return value;
}

/** A per-key attempt counter: the state every per-key limiter shares. */
function counter(): { bump(key: string): number; forget(key: string): void } {
  const counts = new Map<string, number>();
  return {
    bump(key) {
      const previous = counts.get(key) ?? 0;
      counts.set(key, previous + 1);
      return previous;
    },
    forget: (key) => void counts.delete(key),
  };
}

/** Options of `rateLimiters.exponential`. */
export interface ExponentialOptions {
  /** Delay of the first attempt, ms. Default 5. */
  readonly baseMs?: number;
  /** Upper bound of any delay, ms. Default 1 000 000 (1000 s). */
  readonly maxMs?: number;
}

/**
 * Per-key exponential backoff: the n-th attempt since the last `forget` waits `baseMs · 2^(n-1)`, capped at `maxMs`.
 *
 * # Guarantees
 * - With the defaults the delays are 5, 10, 20, 40 ms … up to 1000 s, and never overflow to `Infinity` or `NaN`.
 * - Keys are independent; `forget(key)` restarts that key at `baseMs`.
 *
 * # Caveats
 * - It remembers every key until `forget`; `reconcile` forgets a key after a success, a drop or a terminal failure.
 */
export function exponentialRateLimiter(options: ExponentialOptions = {}): RateLimiter {
  const base = requireNumber('baseMs', options.baseMs ?? DEFAULT_BASE_DELAY_MS, 0);
  const max = requireNumber('maxMs', options.maxMs ?? DEFAULT_MAX_DELAY_MS, 0);
  const counts = counter();
  const policy = { baseMs: base, factor: 2, capMs: max };
  return {
    when: (key) => backoffCeiling(counts.bump(key), policy),
    forget: counts.forget,
  };
}

/** Options of `rateLimiters.tokenBucket`. */
export interface TokenBucketOptions {
  /** Tokens added per second. Default 10. */
  readonly qps?: number;
  /** Bucket capacity, i.e. how many attempts may go at once after a quiet period. Default 100. */
  readonly burst?: number;
}

/**
 * A token bucket shared by all keys, like client-go's `BucketRateLimiter` (`rate.Limiter.Reserve().Delay()`).
 *
 * # Guarantees
 * - Starts full. Each `when` reserves one token; when none is left the reservation is taken on credit and the
 *   returned delay is the time until that token will have been refilled. So a burst of `burst + n` calls at one
 *   instant gets delays `0 × burst`, then `1/qps`, `2/qps` … `n/qps` seconds: the rate is honoured on average.
 * - Delays are whole milliseconds, rounded up.
 *
 * # Caveats
 * - `forget` does nothing: the bucket has no per-key state.
 * - `now` must not go backwards; if it does, the bucket simply refills nothing.
 */
export function tokenBucketRateLimiter(options: TokenBucketOptions = {}): RateLimiter {
  const qps = requireNumber('qps', options.qps ?? DEFAULT_QPS, Number.MIN_VALUE);
  const burst = requireNumber('burst', options.burst ?? DEFAULT_BURST, 1, true);
  const msPerToken = 1000 / qps;
  let tokens = burst;
  let last = Number.NEGATIVE_INFINITY;
  return {
    when(_key, now) {
      if (now > last) {
        tokens = last === Number.NEGATIVE_INFINITY ? burst : Math.min(burst, tokens + (now - last) / msPerToken);
        last = now;
      }
      tokens -= 1;
      // The epsilon absorbs float residue such as 0.30000000000000004 tokens of debt turning 30 ms into 31 ms.
      return tokens >= 0 ? 0 : Math.ceil(-tokens * msPerToken - 1e-9);
    },
    forget() {},
  };
}

/**
 * Combines limiters: the delay is the largest of theirs, like client-go's `MaxOfRateLimiter`.
 *
 * # Guarantees
 * - Every limiter's `when` is called on every attempt (so a bucket reserves its token even when a per-key backoff
 *   dominates), and `forget` reaches all of them.
 */
export function maxOfRateLimiter(...limiters: readonly RateLimiter[]): RateLimiter {
  if (limiters.length === 0) throw new RangeError('maxOfRateLimiter needs at least one limiter');
  return {
    when(key, now) {
      let delay = 0;
      for (const limiter of limiters) delay = Math.max(delay, limiter.when(key, now));
      return delay;
    },
    forget(key) {
      for (const limiter of limiters) limiter.forget(key);
    },
  };
}

/** Options of `rateLimiters.fastSlow`. */
export interface FastSlowOptions {
  /** Delay of the first `maxFastAttempts` attempts, ms. */
  readonly fastMs: number;
  /** Delay of every later attempt, ms. */
  readonly slowMs: number;
  /** How many attempts get `fastMs`. */
  readonly maxFastAttempts: number;
}

/**
 * Per-key two-speed retry, like client-go's `ItemFastSlowRateLimiter`: `fastMs` for the first `maxFastAttempts`
 * attempts since the last `forget`, then `slowMs`.
 *
 * # Guarantees
 * - Keys are independent; `forget(key)` puts that key back on the fast delay.
 */
export function fastSlowRateLimiter(options: FastSlowOptions): RateLimiter {
  const fast = requireNumber('fastMs', options.fastMs, 0);
  const slow = requireNumber('slowMs', options.slowMs, 0);
  const maxFast = requireNumber('maxFastAttempts', options.maxFastAttempts, 0, true);
  const counts = counter();
  return {
    when: (key) => (counts.bump(key) < maxFast ? fast : slow),
    forget: counts.forget,
  };
}

/** A delay chosen by the limiters, plus what went wrong if one misbehaved. Internal to the operator. */
export interface Delay {
  readonly ms: number;
  readonly limiterError?: unknown;
}

/**
 * Asks a limiter for a delay without letting a buggy implementation crash the stream: a throw or a non-finite or
 * negative delay becomes {@link DEFAULT_MAX_DELAY_MS} plus the problem in `limiterError`. Internal to the operator.
 */
export function askLimiter(limiter: RateLimiter, key: string, now: number): Delay {
  try {
    const ms = limiter.when(key, now);
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return { ms };
    return {
      ms: DEFAULT_MAX_DELAY_MS,
      limiterError: new RangeError(`rate limiter returned ${describeValue(ms)} for ${key}`),
    };
  } catch (error) {
    return { ms: DEFAULT_MAX_DELAY_MS, limiterError: error };
  }
}

/** The larger of two delays, keeping the first limiter error. Internal. */
export function combineDelays(a: Delay, b: Delay | undefined): Delay {
  if (b === undefined) return a;
  const ms = Math.max(a.ms, b.ms);
  const limiterError = a.limiterError ?? b.limiterError;
  return limiterError === undefined ? { ms } : { ms, limiterError };
}
