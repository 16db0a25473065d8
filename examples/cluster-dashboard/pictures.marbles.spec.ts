/**
 * The dashboard's pictures on a timeline: how many changes make how many pictures, when, read how many times, and
 * when the views run.
 */
import { expect } from 'chai';
import { concat, defer, map, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { pictures } from './pictures.js';

describe("pictures: the dashboard's shared, sampled stream", () => {
  const scheduler = () =>
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });

  it('reads one picture at once, then at most one per interval while changes come, the last state of each interval at its end', () => {
    const test = scheduler();
    test.run(({ hot, cold, expectObservable }) => {
      let reads = 0;
      // A view replays its snapshot on subscribe (s, not a change), then changes at 3 ms; the queue changes at 2, 4, 6, 14.
      const view = concat(of('s'), cold('---v'));
      const changes = hot('--x-x-x-------x');
      const numbers = pictures({ live: [view], changes }, () => ++reads, 5, test).pipe(map((frame) => frame.json));
      expectObservable(numbers, '^ 30ms !').toBe('1----2----3----4', { 1: '1', 2: '2', 3: '3', 4: '4' });
    });
  });

  it('reads the first picture once the views run, so it shows them built', () => {
    const test = scheduler();
    test.run(({ hot, expectObservable }) => {
      let viewsRunning = false;
      const view = defer(() => {
        viewsRunning = true;
        return of('s');
      });
      const built = pictures({ live: [view], changes: hot('') }, () => viewsRunning, 5, test).pipe(
        map((frame) => frame.json),
      );
      expectObservable(built, '^ 30ms !').toBe('t', { t: 'true' });
    });
  });

  it('after a quiet spell, a change is read at once', () => {
    const test = scheduler();
    test.run(({ hot, expectObservable }) => {
      let reads = 0;
      const changes = hot('-------------x');
      const numbers = pictures({ live: [], changes }, () => ++reads, 5, test).pipe(map((frame) => frame.json));
      expectObservable(numbers, '^ 30ms !').toBe('1------------2', { 1: '1', 2: '2' });
    });
  });

  it('reads each picture once for every browser, replays the latest to one that connects, and runs the views only while someone watches', () => {
    const test = scheduler();
    let reads = 0;
    test.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const view = cold('v');
      const changes = hot('-----------------x');
      const stream = pictures({ live: [view], changes }, () => ++reads, 5, test).pipe(map((frame) => frame.json));
      expectObservable(stream, '^ 12ms !').toBe('1----2', { 1: '1', 2: '2' });
      expectObservable(stream, '--^ 12ms !').toBe('--1--2', { 1: '1', 2: '2' });
      // The view changes at 0 (after the first read), so a picture follows at the end of the interval. The second
      // browser leaves at 15 ms: the views stop; the change at 17 is not read.
      expectSubscriptions(view.subscriptions).toBe('^--------------!');
    });
    expect(reads).to.equal(2);
  });
});
