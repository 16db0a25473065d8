import { expect } from 'chai';
import { asyncScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { monotonicScheduler, wallClockNow } from '../../src/clock/index.js';
import { withSteppedWallClock } from '../leader/wall-clock.js';

describe('monotonicScheduler', () => {
  it('reads a clock that a step of the wall clock does not move, either way', async () => {
    await withSteppedWallClock(async (step) => {
      const before = monotonicScheduler.now();
      step(3_600_000);
      const afterForward = monotonicScheduler.now();
      step(-7_200_000);
      const afterBack = monotonicScheduler.now();
      expect(afterForward).to.be.at.least(before).and.below(before + 60_000);
      expect(afterBack).to.be.at.least(afterForward).and.below(before + 60_000);
    });
  });

  it('stamps with the wall clock, steps included', async () => {
    await withSteppedWallClock(async (step) => {
      step(Date.UTC(2031, 0, 1) - Date.now());
      expect(monotonicScheduler.wallClock() - Date.UTC(2031, 0, 1)).to.be.within(0, 60_000);
      expect(wallClockNow(monotonicScheduler) - Date.UTC(2031, 0, 1)).to.be.within(0, 60_000);
    });
  });

  it('runs its work on asyncScheduler\u2019s timers, with state, and rescheduled from within', async () => {
    const seen: number[] = [];
    await new Promise<void>((resolve) => {
      monotonicScheduler.schedule(function (state) {
        seen.push(state!);
        if (state! < 3) this.schedule(state! + 1, 1);
        else resolve();
      }, 1, 1);
    });
    expect(seen).to.deep.equal([1, 2, 3]);
  });
});

describe('wallClockNow', () => {
  it('is now() for a scheduler without a wall clock: Date.now() for asyncScheduler, virtual time for a TestScheduler', async () => {
    await withSteppedWallClock(async (step) => {
      step(Date.UTC(2031, 0, 1) - Date.now());
      expect(wallClockNow(asyncScheduler) - Date.UTC(2031, 0, 1)).to.be.within(0, 60_000);
    });
    const scheduler = new TestScheduler(() => undefined);
    scheduler.run(() => {
      scheduler.schedule(() => expect(wallClockNow(scheduler)).to.equal(1234), 1234);
    });
  });
});
