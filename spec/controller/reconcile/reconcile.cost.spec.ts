import { expect } from 'chai';
import { BehaviorSubject, Subject } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile } from '../../../src/controller/index.js';
import type { ReconcileEvent, ReconcileKeyRequest } from '../../../src/controller/index.js';
import { KeyedQueue } from '../../../src/controller/reconcile/keyed-queue.js';

/** A virtual-time scheduler that counts its clock reads. */
function countingScheduler(): { scheduler: SchedulerLike; reads: () => number } {
  const inner = new TestScheduler(() => {});
  let reads = 0;
  const scheduler: SchedulerLike = {
    now: () => {
      reads += 1;
      return inner.now();
    },
    schedule: inner.schedule.bind(inner) as SchedulerLike['schedule'],
  };
  return { scheduler, reads: () => reads };
}

describe('reconcile: the cost of the hot path', () => {
  it('reads the clock twice per run of an idle key with a synchronous reconcile: once at the trigger, once at the end', () => {
    const { scheduler, reads } = countingScheduler();
    const triggers = new Subject<string>();
    const events: ReconcileEvent[] = [];
    triggers.pipe(reconcile(() => undefined, { scheduler, concurrency: 4 })).subscribe((event) => events.push(event));
    for (let i = 0; i < 50; i += 1) triggers.next(`k${i}`);
    expect(events.filter((event) => event.type === 'succeeded')).to.have.length(50);
    expect(reads()).to.equal(100);
  });

  it('reads no clock for a trigger that coalesces into a waiting key', () => {
    const { scheduler, reads } = countingScheduler();
    const triggers = new Subject<string>();
    const gate = new BehaviorSubject(false);
    const starts: string[] = [];
    triggers.pipe(reconcile(({ key }) => void starts.push(key), { scheduler, gate })).subscribe();
    triggers.next('a');
    const afterFirst = reads();
    for (let i = 0; i < 1000; i += 1) triggers.next('a');
    expect(reads()).to.equal(afterFirst);
    gate.next(true);
    expect(starts).to.deep.equal(['a']);
  });

  it('hands every run with one reason the same frozen array, and never mutates an array it handed out', () => {
    const triggers = new Subject<{ key: string; reason: string }>();
    const gate = new BehaviorSubject(true);
    const seen: (readonly string[])[] = [];
    const copies: string[][] = [];
    triggers
      .pipe(
        reconcile(
          ({ reasons }: ReconcileKeyRequest) => {
            seen.push(reasons);
            copies.push([...reasons]);
          },
          { gate },
        ),
      )
      .subscribe();
    triggers.next({ key: 'a', reason: 'updated' });
    triggers.next({ key: 'b', reason: 'updated' });
    gate.next(false);
    triggers.next({ key: 'a', reason: 'updated' });
    triggers.next({ key: 'a', reason: 'owner:x' });
    triggers.next({ key: 'b', reason: 'updated' });
    gate.next(true);
    expect(copies).to.deep.equal([['updated'], ['updated'], ['updated', 'owner:x'], ['updated']]);
    expect(seen.map((reasons) => [...reasons])).to.deep.equal(copies);
    expect(seen[0]).to.equal(seen[1]);
    expect(Object.isFrozen(seen[0])).to.equal(true);
    expect(() => (seen[0] as string[]).push('x')).to.throw(TypeError);
  });

  it('caps the shared single-reason arrays so that unbounded reasons cannot grow memory', () => {
    const queue = new KeyedQueue(new TestScheduler(() => {}), () => {});
    const handedOut: (readonly string[])[] = [];
    for (let i = 0; i < 2000; i += 1) {
      queue.trigger(`k${i}`, `owner:${i}`);
      handedOut.push(queue.takeReasons(queue.take()!));
    }
    expect(handedOut.map((reasons) => reasons[0])).to.deep.equal(Array.from({ length: 2000 }, (_, i) => `owner:${i}`));
    // The cache is internal; its bound shows as fresh (unshared) arrays for the same reason past the cap.
    queue.trigger('again-1', 'owner:1999');
    expect(queue.takeReasons(queue.take()!)).not.to.equal(handedOut[1999]);
    queue.trigger('again-2', 'owner:0');
    expect(queue.takeReasons(queue.take()!)).to.equal(handedOut[0]);
  });
});
