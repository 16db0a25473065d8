/**
 * The per-object spam filter: a token bucket per (object, event type), as client-go's
 * `EventSourceObjectSpamFilter` (tools/record) keeps one per source and object.
 */
import type { SpamFilterOptions } from './types.js';

/** client-go's `defaultSpamBurst`. */
export const DEFAULT_SPAM_BURST = 25;
/** client-go's `defaultSpamQPS`: one event every 5 minutes. */
export const DEFAULT_SPAM_QPS = 1 / 300;
/** client-go's `maxLruCacheEntries`. */
export const DEFAULT_SPAM_OBJECTS = 4096;

/** Float residue such as 0.9999999999999998 tokens must still count as one. */
const EPSILON = 1e-9;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Decides whether an object may have one more event now.
 *
 * # Guarantees
 * - Each key starts with `burst` tokens; an accepted event takes one; tokens come back at `qps` per second up to
 *   `burst`. A refused event takes nothing (client-go's `TryAccept`), so refusals never push the next refill away.
 * - Remembers at most `maxObjects` keys; the least recently used is forgotten first (it then starts full again).
 * - Reads no clock: `now` is the caller's scheduler time.
 */
export class SpamFilter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;
  private readonly msPerToken: number;
  private readonly maxObjects: number;

  constructor(options: SpamFilterOptions = {}) {
    this.burst = options.burst ?? DEFAULT_SPAM_BURST;
    this.msPerToken = 1000 / (options.qps ?? DEFAULT_SPAM_QPS);
    this.maxObjects = options.maxObjects ?? DEFAULT_SPAM_OBJECTS;
  }

  /** Takes a token for `key` at `now` if there is one; `false` means filter the event out. */
  accept(key: string, now: number): boolean {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.burst, at: now };
    } else {
      // Re-inserting keeps the Map in least-recently-used order.
      this.buckets.delete(key);
      if (now > bucket.at) {
        bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) / this.msPerToken);
        bucket.at = now;
      }
    }
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxObjects) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1 - EPSILON) return false;
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    return true;
  }
}
