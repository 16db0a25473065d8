import { expect } from 'chai';
import fc from 'fast-check';
import { SpamFilter } from '../../../src/client/events/spam-filter.js';

describe('eventRecorder: spam filter (properties)', () => {
  it('never accepts more than burst + elapsed · qps events for one key in any interval', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 600_000 }), { maxLength: 200 }).map((gaps) => {
          let t = 0;
          return gaps.map((gap) => (t += gap % 3 === 0 ? 0 : gap));
        }),
        (burst, times) => {
          const filter = new SpamFilter({ burst, qps: 1 / 300 });
          const accepted = times.filter((t) => filter.accept('pod', t));
          for (let i = 0; i < accepted.length; i++) {
            for (let j = i; j < accepted.length; j++) {
              const allowed = burst + Math.floor((accepted[j]! - accepted[i]!) / 300_000);
              expect(j - i + 1, `accepted between ${accepted[i]} and ${accepted[j]}`).to.be.at.most(allowed);
            }
          }
        },
      ),
    );
  });

  it('accepts every event when they come no faster than the refill rate, whatever the burst', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.integer({ min: 300_000, max: 900_000 }), { maxLength: 50 }),
        (burst, gaps) => {
          const filter = new SpamFilter({ burst, qps: 1 / 300 });
          let t = 0;
          for (const gap of gaps) expect(filter.accept('pod', (t += gap))).to.equal(true);
        },
      ),
    );
  });

  it('keeps keys apart, and forgets the least recently used key beyond maxObjects (it starts full again)', () => {
    const filter = new SpamFilter({ burst: 1, qps: 1 / 300, maxObjects: 2 });
    expect(filter.accept('a', 0)).to.equal(true);
    expect(filter.accept('b', 0)).to.equal(true);
    expect(filter.accept('a', 1)).to.equal(false);
    expect(filter.accept('c', 2)).to.equal(true); // forgets b, the least recently used
    expect(filter.accept('b', 3)).to.equal(true);
    expect(filter.accept('c', 4)).to.equal(false);
  });
});
