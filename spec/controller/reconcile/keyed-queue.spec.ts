import { expect } from 'chai';
import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import { KeyedQueue } from '../../../src/controller/reconcile/keyed-queue.js';
import { MinHeap, Ring } from '../../../src/controller/reconcile/structures.js';

describe('the keyed queue', () => {
  it('keeps the earliest of several scheduled times for one key', () => {
    const scheduler = new TestScheduler(() => {});
    const wakes: number[] = [];
    const queue = new KeyedQueue(scheduler, () => wakes.push(scheduler.now()));
    queue.trigger('a', undefined);
    const state = queue.take()!;
    queue.finish(state, 0, true);
    expect(queue.delay(state, 50, 0, 'r')).to.equal(50);
    expect(queue.delay(state, 20, 0, 'r')).to.equal(20);
    expect(queue.delay(state, 70, 0, 'r')).to.equal(20);
    scheduler.flush();
    expect(wakes).to.deep.equal([20]);
    expect(queue.take()).to.equal(state);
    expect(queue.take()).to.equal(undefined);
  });

  it('marks a key triggered while it runs dirty and makes it ready once when the run ends', () => {
    const scheduler = new TestScheduler(() => {});
    const queue = new KeyedQueue(scheduler, () => {});
    queue.trigger('a', 'r1');
    const state = queue.take()!;
    expect(queue.takeReasons(state)).to.deep.equal(['r1']);
    scheduler.schedule(() => queue.trigger('a', 'r2'), 1);
    scheduler.schedule(() => queue.trigger('a', 'r3'), 2);
    scheduler.flush();
    expect(queue.take()).to.equal(undefined);
    queue.finish(state, 5, true);
    expect(queue.take()).to.equal(state);
    expect(queue.take()).to.equal(undefined);
    expect(queue.takeReasons(state)).to.deep.equal(['r2', 'r3']);
    expect(state.enqueuedAt).to.equal(1);
  });

  it('purges stale delay entries so a key re-delayed many times does not grow memory', () => {
    const scheduler = new TestScheduler(() => {});
    const queue = new KeyedQueue(scheduler, () => {});
    // z stays live at the top of the heap, so stale entries below it are not popped on the way.
    queue.trigger('z', undefined);
    const z = queue.take()!;
    queue.finish(z, 0, true);
    queue.delay(z, 10, 0, 'r');
    for (let i = 0; i < 10_000; i += 1) {
      queue.trigger('a', undefined); // a fresh trigger leaves the previous delay entry stale
      const state = queue.take()!;
      queue.finish(state, 0, true);
      queue.delay(state, 1_000_000, 0, 'r');
    }
    expect(queue.pendingCount).to.equal(2);
    expect(queue.heapSize).to.be.at.most(2 * 2 + 1024 + 1);
  });

  it('drops a key record as soon as its run ends with nothing left to remember, so the table holds only keys in use', () => {
    const queue = new KeyedQueue(new TestScheduler(() => {}), () => {});
    let most = 0;
    for (let i = 0; i < 100_000; i += 1) {
      queue.trigger(`churn-${i}`, undefined);
      most = Math.max(most, queue.recordCount);
      const state = queue.take()!;
      queue.finish(state, 0, true);
      queue.release(state);
    }
    expect(most).to.equal(1);
    expect(queue.recordCount).to.equal(0);
  });

  it('keeps the record of a key that is dirty, failing or delayed when its run ends', () => {
    const queue = new KeyedQueue(new TestScheduler(() => {}), () => {});
    queue.trigger('failing', undefined);
    const failing = queue.take()!;
    queue.finish(failing, 0, true);
    failing.failures = 1;
    queue.release(failing);
    queue.trigger('delayed', undefined);
    const delayed = queue.take()!;
    queue.finish(delayed, 0, true);
    queue.delay(delayed, 50, 0, 'requeue');
    queue.release(delayed);
    queue.trigger('dirty', undefined);
    const dirty = queue.take()!;
    queue.trigger('dirty', 'again'); // arrives during the run
    queue.finish(dirty, 0, true);
    queue.release(dirty);
    expect(queue.recordCount).to.equal(3);
    // The dirty key runs again with its reason, on the record it kept.
    const again = queue.take()!;
    expect(again).to.equal(dirty);
    expect(queue.takeReasons(again)).to.deep.equal(['again']);
  });

  it('forgets waiting keys and their records when intake stops, but keeps running and failing keys', () => {
    const queue = new KeyedQueue(new TestScheduler(() => {}), () => {});
    queue.trigger('running', undefined);
    const running = queue.take()!;
    queue.trigger('running', 'next'); // dirty: its next run is dropped by the stop
    queue.trigger('waiting', 'why');
    queue.trigger('failing', undefined);
    const failing = queue.take()!;
    queue.finish(failing, 0, true);
    failing.failures = 1;
    queue.delay(failing, 100, 0, 'retry');
    queue.release(failing);
    queue.clearPending();
    expect(queue.pendingCount).to.equal(0);
    expect(queue.recordCount).to.equal(2); // running and failing
    queue.finish(running, 0, false);
    queue.release(running);
    expect(queue.recordCount).to.equal(1);
    expect(queue.take()).to.equal(undefined);
  });

  it('folds reasons beyond 8 distinct ones into a single marker', () => {
    const queue = new KeyedQueue(new TestScheduler(() => {}), () => {});
    for (let i = 0; i < 100; i += 1) queue.trigger('a', `r${i % 50}`);
    const reasons = queue.takeReasons(queue.take()!);
    expect(reasons).to.deep.equal(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', '...']);
  });
});

describe('the queue containers', () => {
  it('a ring buffer behaves like an array used as a FIFO', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 300 }), (ops) => {
        const ring = new Ring<number>();
        const model: number[] = [];
        for (const op of ops) {
          if (op === null) {
            if (ring.shift() !== model.shift()) return false;
          } else {
            ring.push(op);
            model.push(op);
          }
          if (ring.length !== model.length) return false;
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });

  it('a min-heap keeps its order after retaining a subset', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 200 }), (times) => {
        const heap = new MinHeap<number>();
        times.forEach((at, index) => heap.push(at, index));
        heap.retain((entry) => entry.value % 3 !== 0);
        const popped: number[] = [];
        for (let entry = heap.pop(); entry !== undefined; entry = heap.pop()) popped.push(entry.value);
        const expected = times
          .map((at, index) => ({ at, index }))
          .filter(({ index }) => index % 3 !== 0)
          .sort((a, b) => a.at - b.at || a.index - b.index)
          .map(({ index }) => index);
        expect(popped).to.deep.equal(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a min-heap pops by time, and FIFO among equal times', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 200 }), (times) => {
        const heap = new MinHeap<number>();
        times.forEach((at, index) => heap.push(at, index));
        const popped: [number, number][] = [];
        for (let entry = heap.pop(); entry !== undefined; entry = heap.pop()) popped.push([entry.at, entry.value]);
        const expected = times
          .map((at, index): [number, number] => [at, index])
          .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(popped).to.deep.equal(expected);
      }),
      { numRuns: 200 },
    );
  });
});
