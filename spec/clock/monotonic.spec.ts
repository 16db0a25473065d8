import { expect } from 'chai';
import { asyncScheduler, interval, take, timer, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { monotonicScheduler, wallClockNow } from '../../src/clock/index.js';
import { reconcile } from '../../src/controller/index.js';
import { timeline, virtual } from '../controller/helpers.js';
import { withSteppedWallClock } from '../leader/wall-clock.js';

describe('monotonicScheduler', () => {
  it('reads a clock that a step of the wall clock does not move, either way', async () => {
    await withSteppedWallClock(async (step) => {
      const before = monotonicScheduler.now();
      step(3_600_000);
      const afterForward = monotonicScheduler.now();
      step(-7_200_000);
      const afterBack = monotonicScheduler.now();
      expect(afterForward)
        .to.be.at.least(before)
        .and.below(before + 60_000);
      expect(afterBack)
        .to.be.at.least(afterForward)
        .and.below(before + 60_000);
    });
  });

  it('reads neither the global performance nor its timeOrigin on each now(), which cost a quarter of a reading', () => {
    const real = performance;
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'performance');
    let globalReads = 0;
    let originReads = 0;
    const counted = new Proxy(real, {
      get(target, property) {
        if (property === 'timeOrigin') originReads += 1;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    Object.defineProperty(globalThis, 'performance', {
      configurable: true,
      get: () => {
        globalReads += 1;
        return counted;
      },
    });
    let readings: number[];
    try {
      readings = Array.from({ length: 10 }, () => monotonicScheduler.now());
    } finally {
      if (descriptor !== undefined) Object.defineProperty(globalThis, 'performance', descriptor);
    }
    expect({ globalReads, originReads }).to.deep.equal({ globalReads: 0, originReads: 0 });
    expect(readings.every((at, i) => i === 0 || at >= readings[i - 1]!)).to.equal(true);
  });

  it('stamps with the wall clock, steps included', async () => {
    await withSteppedWallClock(async (step) => {
      step(Date.UTC(2031, 0, 1) - Date.now());
      expect(monotonicScheduler.wallClock() - Date.UTC(2031, 0, 1)).to.be.within(0, 60_000);
      expect(wallClockNow(monotonicScheduler) - Date.UTC(2031, 0, 1)).to.be.within(0, 60_000);
    });
  });

  it('inside TestScheduler.run(), fires timer(1000) at frame 1000 as asyncScheduler does', () => {
    for (const scheduler of [asyncScheduler, monotonicScheduler] as SchedulerLike[]) {
      virtual(({ expectObservable }) => {
        expectObservable(timer(1000, scheduler)).toBe('1000ms (0|)', { 0: 0 });
        expectObservable(interval(10, scheduler).pipe(take(3))).toBe('10ms a 9ms b 9ms (c|)', { a: 0, b: 1, c: 2 });
      });
    }
  });

  it('inside TestScheduler.run(), reads the run\u2019s virtual time from now() and wallClock()', () => {
    const seen: number[][] = [];
    virtual(({ scheduler }) => {
      scheduler.schedule(
        () => seen.push([monotonicScheduler.now(), monotonicScheduler.wallClock(), wallClockNow(monotonicScheduler)]),
        1234,
      );
      monotonicScheduler.schedule(() => seen.push([monotonicScheduler.now(), scheduler.now()]), 50);
    });
    expect(seen).to.deep.equal([
      [50, 50],
      [1234, 1234, 1234],
    ]);
  });

  it('reads the monotonic clock again once TestScheduler.run() is over', async () => {
    virtual(() => undefined);
    await withSteppedWallClock(async (step) => {
      const before = monotonicScheduler.now();
      step(-7_200_000);
      expect(monotonicScheduler.now())
        .to.be.at.least(before)
        .and.below(before + 60_000);
      expect(monotonicScheduler.wallClock() - Date.now()).to.be.within(-60_000, 0);
    });
  });

  it('inside TestScheduler.run(), lets reconcile retry and requeue on the frames asyncScheduler gives', () => {
    const runs = (scheduler: SchedulerLike | undefined): string[] =>
      virtual(({ hot, cold, scheduler: virtualClock }) => {
        const outcomes = ['#', '#', '(r|)', '|'];
        let call = 0;
        const out$ = hot('a').pipe(
          reconcile(
            () => cold(outcomes[call++] ?? '|', { r: { requeueAfter: 100 } }),
            scheduler === undefined ? {} : { scheduler },
          ),
        );
        return timeline(out$, virtualClock);
      });
    const expected = [
      '0 started a#1',
      '0 failed a',
      '0 retrying a +5',
      '5 started a#2',
      '5 failed a',
      '5 retrying a +10',
      '15 started a#3',
      '15 succeeded a',
      '15 requeued a +100',
      '115 started a#1',
      '115 succeeded a',
    ];
    expect(runs(asyncScheduler)).to.deep.equal(expected);
    expect(runs(monotonicScheduler)).to.deep.equal(expected);
    expect(runs(undefined)).to.deep.equal(expected);
  });

  it('runs its work on asyncScheduler\u2019s timers, with state, and rescheduled from within', async () => {
    const seen: number[] = [];
    await new Promise<void>((resolve) => {
      monotonicScheduler.schedule(
        function (state) {
          seen.push(state!);
          if (state! < 3) this.schedule(state! + 1, 1);
          else resolve();
        },
        1,
        1,
      );
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
