import { expect } from 'chai';
import fc from 'fast-check';
import {
  exponentialRateLimiter,
  fastSlowRateLimiter,
  maxOfRateLimiter,
  tokenBucketRateLimiter,
} from '../../../src/controller/index.js';
import type { RateLimiter } from '../../../src/controller/index.js';

describe('rate limiters', () => {
  describe('exponentialRateLimiter', () => {
    it('waits 5, 10, 20, 40 ms by default and starts over after forget', () => {
      const limiter = exponentialRateLimiter();
      expect([1, 2, 3, 4].map(() => limiter.when('a', 0))).to.deep.equal([5, 10, 20, 40]);
      limiter.forget('a');
      expect(limiter.when('a', 0)).to.equal(5);
    });

    it('keeps keys independent', () => {
      const limiter = exponentialRateLimiter({ baseMs: 1 });
      limiter.when('a', 0);
      limiter.when('a', 0);
      expect(limiter.when('b', 0)).to.equal(1);
    });

    it('never exceeds the cap nor returns a non-finite delay, however many failures', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 1000 }), (attempts, baseMs) => {
          const limiter = exponentialRateLimiter({ baseMs, maxMs: 1_000_000 });
          let last = 0;
          for (let i = 0; i < attempts; i += 1) {
            const delay = limiter.when('k', 0);
            if (!Number.isFinite(delay) || delay > 1_000_000 || delay < last) return false;
            last = delay;
          }
          return attempts < 30 || last === 1_000_000;
        }),
        { numRuns: 60 },
      );
    });

    it('rejects a negative base with a clear error', () => {
      expect(() => exponentialRateLimiter({ baseMs: -1 })).to.throw(RangeError, /baseMs/);
    });
  });

  describe('tokenBucketRateLimiter', () => {
    it('lets a burst through and then spaces attempts by 1/qps', () => {
      const limiter = tokenBucketRateLimiter({ qps: 10, burst: 3 });
      expect([1, 2, 3, 4, 5, 6].map(() => limiter.when('x', 0))).to.deep.equal([0, 0, 0, 100, 200, 300]);
    });

    it('refills with the time passed in, not with any clock of its own', () => {
      const limiter = tokenBucketRateLimiter({ qps: 10, burst: 1 });
      expect(limiter.when('x', 1000)).to.equal(0);
      expect(limiter.when('x', 1000)).to.equal(100);
      // 50 ms refilled half of the one token owed; this reservation adds another: 1.5 tokens short = 150 ms.
      expect(limiter.when('x', 1050)).to.equal(150);
      expect(limiter.when('x', 5000)).to.equal(0);
    });

    it('holds the average rate: n attempts at one instant end no sooner than (n - burst) / qps', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 50 }),
          fc.integer({ min: 1, max: 20 }),
          fc.integer({ min: 1, max: 500 }),
          (qps, burst, n) => {
            const limiter = tokenBucketRateLimiter({ qps, burst });
            let last = 0;
            for (let i = 0; i < n; i += 1) last = limiter.when('x', 0);
            const floor = Math.max(0, ((n - burst) * 1000) / qps);
            return last >= floor - 1e-6 && last <= Math.ceil(floor) + 1;
          },
        ),
        { numRuns: 100 },
      );
    });

    it('defaults to 10 qps with a burst of 100', () => {
      const limiter = tokenBucketRateLimiter();
      const delays = Array.from({ length: 101 }, () => limiter.when('x', 0));
      expect(delays.slice(0, 100).every((delay) => delay === 0)).to.equal(true);
      expect(delays[100]).to.equal(100);
    });
  });

  describe('maxOfRateLimiter', () => {
    it('takes the largest delay and forwards forget to every limiter', () => {
      const exponential = exponentialRateLimiter({ baseMs: 5 });
      const bucket = tokenBucketRateLimiter({ qps: 100, burst: 1 });
      const limiter = maxOfRateLimiter(exponential, bucket);
      expect(limiter.when('a', 0)).to.equal(5); // bucket: 0
      expect(limiter.when('a', 0)).to.equal(10); // bucket: 10, exponential: 10
      expect(limiter.when('b', 0)).to.equal(20); // bucket: 20 dominates a fresh key's 5
      limiter.forget('a');
      expect(exponential.when('a', 0)).to.equal(5); // the exponential limiter starts over
      expect(bucket.when('a', 0)).to.equal(30); // the bucket keeps no per-key state to forget
    });
  });

  describe('fastSlowRateLimiter', () => {
    it('uses the fast delay for the first attempts, then the slow one, until forget', () => {
      const limiter = fastSlowRateLimiter({ fastMs: 1, slowMs: 100, maxFastAttempts: 2 });
      expect([1, 2, 3, 4].map(() => limiter.when('a', 0))).to.deep.equal([1, 1, 100, 100]);
      limiter.forget('a');
      expect(limiter.when('a', 0)).to.equal(1);
    });
  });

  it('accepts any user-defined implementation of the interface', () => {
    const constant: RateLimiter = { when: () => 42, forget() {} };
    expect(maxOfRateLimiter(constant, exponentialRateLimiter()).when('a', 0)).to.equal(42);
  });
});
