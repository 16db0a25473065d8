import { expect } from 'chai';
import fc from 'fast-check';
import { backoffCeiling } from '../../src/backoff/index.js';
import { DEFAULT_WATCH_BACKOFF, exponentialBackoff } from '../../src/watch/index.js';

describe('exponentialBackoff', () => {
  it('doubles from 800 ms and caps at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoffCeiling(n, DEFAULT_WATCH_BACKOFF))).to.deep.equal([
      800, 1600, 3200, 6400, 12800, 25600, 30000, 30000,
    ]);
  });

  it('scales the ceiling by the jitter sample (full jitter)', () => {
    expect(exponentialBackoff(2, 0.25)).to.equal(800);
    expect(exponentialBackoff(0, 0)).to.equal(0);
  });

  it('stays within [0, cap] and never exceeds its ceiling for any attempt and sample', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, jitter) => {
        const delay = exponentialBackoff(attempt, jitter);
        return (
          delay >= 0 &&
          delay <= DEFAULT_WATCH_BACKOFF.capMs &&
          delay <= backoffCeiling(attempt, DEFAULT_WATCH_BACKOFF) &&
          Number.isFinite(delay)
        );
      }),
      { numRuns: 500 },
    );
  });

  it('has a ceiling that never decreases as attempts grow', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        (n) => backoffCeiling(n, DEFAULT_WATCH_BACKOFF) <= backoffCeiling(n + 1, DEFAULT_WATCH_BACKOFF),
      ),
      { numRuns: 300 },
    );
  });
});
