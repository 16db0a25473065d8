/**
 * `slowStartBatch` in virtual time (kube-controller-manager's `TestSlowStartBatch`), and as a property over any
 * count and any set of failing calls.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { defer, mergeMap, throwError, timer, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { slowStartBatch, type SlowStartResult } from './slow-start.js';

/** Runs a slow start whose calls take `callMs` and fail for the indexes in `failing`; returns its result and a log. */
function start(
  count: number,
  failing: ReadonlySet<number>,
  initialBatchSize = 1,
  callMs = 10,
): { result: SlowStartResult; log: string[] } {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  const log: string[] = [];
  let result!: SlowStartResult;
  scheduler.run(() => {
    const call = (index: number): Observable<unknown> =>
      defer(() => {
        log.push(`${scheduler.now()} call ${index}`);
        return failing.has(index)
          ? timer(callMs).pipe(mergeMap(() => throwError(() => new Error(`call ${index} failed`))))
          : timer(callMs);
      });
    slowStartBatch(count, initialBatchSize, call, (size) => log.push(`${scheduler.now()} batch ${size}`)).subscribe(
      (r) => {
        result = r;
        log.push(`${scheduler.now()} done`);
      },
    );
    scheduler.flush();
  });
  return { result, log };
}

describe('the replica-set example: slowStartBatch', () => {
  it('runs batches of 1, 2, 4… at once, each after the previous one has finished, never more than are left', () => {
    const { result, log } = start(10, new Set());
    expect(result).to.deep.equal({ successes: 10, batches: [1, 2, 4, 3] });
    expect(log).to.deep.equal([
      '0 batch 1',
      '0 call 0',
      '10 batch 2',
      '10 call 1',
      '10 call 2',
      '20 batch 4',
      '20 call 3',
      '20 call 4',
      '20 call 5',
      '20 call 6',
      '30 batch 3',
      '30 call 7',
      '30 call 8',
      '30 call 9',
      '40 done',
    ]);
  });

  it('stops after the first batch with a failure, and reports the first failure of that batch', () => {
    const { result, log } = start(10, new Set([2, 4, 5]));
    expect(result.successes).to.equal(1 + 1);
    expect(result.batches).to.deep.equal([1, 2]);
    expect((result.error as Error).message).to.equal('call 2 failed');
    expect(log.at(-1)).to.equal('20 done');
  });

  it('counts the successes of the failing batch', () => {
    const { result } = start(10, new Set([6]));
    expect(result).to.deep.include({ successes: 1 + 2 + 3, batches: [1, 2, 4] });
  });

  it('makes no call for a count of 0, and starts with initialBatchSize', () => {
    expect(start(0, new Set()).result).to.deep.equal({ successes: 0, batches: [] });
    expect(start(5, new Set(), 3).result).to.deep.equal({ successes: 5, batches: [3, 2] });
  });

  it('refuses a count or a first batch size that is not a whole number in range', () => {
    expect(() => slowStartBatch(-1, 1, () => timer(0))).to.throw(RangeError, 'count must be an integer >= 0, got -1');
    expect(() => slowStartBatch(1, 0, () => timer(0))).to.throw(
      RangeError,
      'initialBatchSize must be an integer >= 1, got 0',
    );
  });

  it('makes exactly the calls of the batches up to the first failing one, doubling from the first (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 5 }),
        (count, first, failingList) => {
          const failing = new Set(failingList);
          const { result, log } = start(count, failing, first);
          const calls = log.filter((line) => line.includes(' call ')).map((line) => Number(line.split(' ').at(-1)));
          // The batches a model of kube-controller-manager's loop would run.
          const expected: number[] = [];
          let made = 0;
          for (let size = Math.min(count, first); size > 0; size = Math.min(2 * size, count - made)) {
            expected.push(size);
            made += size;
            if (calls.slice(made - size, made).some((index) => failing.has(index))) break;
          }
          expect(result.batches).to.deep.equal(expected);
          expect(calls).to.deep.equal(Array.from({ length: made }, (_, i) => i));
          expect(result.successes).to.equal(calls.filter((index) => !failing.has(index)).length);
          expect(result.error === undefined).to.equal(calls.every((index) => !failing.has(index)));
        },
      ),
    );
  });
});
