import { expect } from 'chai';
import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { ownWriteLedger, type OwnWrites } from '../../../src/controller/own-writes/index.js';
import { CONFIG_MAP, object, write } from './support.js';

/** How many writes the ledger remembers, over the objects a spec wrote. */
function remembered(writes: OwnWrites, names: Iterable<string>): number {
  let count = 0;
  for (const name of names) count += writes.writesTo(CONFIG_MAP, `default/${name}`).length;
  return count;
}

describe('ownWrites.ledger retention', () => {
  it('forgets a write older than retain once as many later writes as it remembered have come, sweep after sweep', () => {
    // The ledger only reads `now()`: a spec moves the clock by hand through `frame`.
    const clock = new VirtualTimeScheduler();
    const writes = ownWriteLedger({ scheduler: clock, retain: 1_000 });
    let version = 0;
    const writeNew = (name: string) => {
      clock.frame += 2;
      write(writes, object(name, String(++version)));
    };
    for (let i = 0; i < 1_100; i++) writeNew(`before-${i}`);
    writeNew('first');
    for (let i = 0; i < 3_000; i++) writeNew(`after-${i}`);
    // Before the fix, a sweep waited for the writes since the last one to outnumber everything remembered, which
    // grew with each of those writes: after the first sweep, with every write to a new object, none ran again.
    expect(writes.writesTo(CONFIG_MAP, 'default/first')).to.deep.equal([]);
    expect(writes.writesTo(CONFIG_MAP, 'default/before-1099')).to.deep.equal([]);
    expect(writes.writesTo(CONFIG_MAP, 'default/after-2999')).to.have.length(1);
  });

  it('keeps what it remembers within twice the busiest retain window, plus 1,024, under any write schedule', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ object: fc.nat(3_000), gap: fc.nat(40) }), { minLength: 1_500, maxLength: 5_000 }),
        fc.integer({ min: 50, max: 2_000 }),
        (schedule, retain) => {
          const clock = new VirtualTimeScheduler();
          const writes = ownWriteLedger({ scheduler: clock, retain });
          const names = new Set<string>();
          const times: number[] = [];
          let busiestWindow = 0;
          let oldestInWindow = 0;
          schedule.forEach(({ object: n, gap }, i) => {
            clock.frame += gap;
            times.push(clock.frame);
            while (times[oldestInWindow]! < clock.frame - retain) oldestInWindow++;
            busiestWindow = Math.max(busiestWindow, times.length - oldestInWindow);
            names.add(`o-${n}`);
            write(writes, object(`o-${n}`, String(i + 1)));
            if (i % 97 === 0 || i === schedule.length - 1) {
              expect(remembered(writes, names)).to.be.at.most(2 * busiestWindow + 1_024);
            }
          });
        },
      ),
      // Shrinking thousands of writes takes minutes and tells no more than the first failing schedule does.
      { numRuns: 40, endOnFailure: true },
    );
  });
});
