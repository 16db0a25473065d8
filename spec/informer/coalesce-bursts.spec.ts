import { expect } from 'chai';
import fc from 'fast-check';
import { Observable, Subject, type Subscriber } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { coalesceBursts, informerFromSource } from '../../src/informer/index.js';
import type { Store } from '../../src/store/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { pod, type TestPod } from '../store/fixtures.js';

type E = WatchEvent<TestPod>;
const added = (name: string, rv = '1'): E => ({ type: 'added', object: pod(name, rv) });
const modified = (name: string, rv: string): E => ({ type: 'modified', object: pod(name, rv) });

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

describe('coalesceBursts', () => {
  it('emits what arrived in one frame as one batch, in order, flattening arrays (marbles)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const [a, b, c, d] = [added('a'), added('b'), added('c'), added('d')];
      const source = cold<E | E[]>('-(abc)--d---|', { a, b: [b, c], c: d, d: modified('a', '2') });
      expectObservable(source.pipe(coalesceBursts(scheduler))).toBe('-x------y---|', {
        x: [a, b, c, d],
        y: [modified('a', '2')],
      });
    });
  });

  it('emits the pending burst before an error, so that nothing that arrived is lost (marbles)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const boom = new Error('watch failed');
      const source = cold<E>('-(ab#)', { a: added('a'), b: added('b') }, boom);
      expectObservable(source.pipe(coalesceBursts(scheduler))).toBe('-(x#)', { x: [added('a'), added('b')] }, boom);
    });
  });

  it('emits the pending burst before completing, and never an empty batch (marbles)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold<E | E[]>('-e-(a|)', { e: [], a: added('a') });
      expectObservable(source.pipe(coalesceBursts(scheduler))).toBe('---(x|)', { x: [added('a')] });
    });
  });

  it('cancels its scheduled flush and the source when unsubscribed before the flush', () => {
    const scheduler = testScheduler();
    let sourceTornDown = false;
    const source = new Observable<E>((subscriber) => {
      subscriber.next(added('a'));
      return () => (sourceTornDown = true);
    });
    const seen: (readonly E[])[] = [];
    const subscription = source.pipe(coalesceBursts(scheduler)).subscribe((batch) => seen.push(batch));
    expect(
      scheduler.actions.filter((action) => !action.closed),
      'the flush of the pending burst',
    ).to.have.length(1);
    subscription.unsubscribe();
    expect(
      scheduler.actions.filter((action) => !action.closed),
      'no flush left behind',
    ).to.have.length(0);
    expect(sourceTornDown).to.equal(true);
    scheduler.flush();
    expect(seen).to.deep.equal([]);
  });

  it('passes an array that is alone in its burst without copying it', async () => {
    const source = new Subject<E[]>();
    const seen: (readonly E[])[] = [];
    source.pipe(coalesceBursts<TestPod>()).subscribe((batch) => seen.push(batch));
    const batch = [added('a'), added('b')];
    source.next(batch);
    await Promise.resolve();
    expect(seen).to.have.length(1);
    expect(seen[0]).to.equal(batch);
  });

  it('leaves the arrays the source emitted unchanged when it merges them', async () => {
    const source = new Subject<E | E[]>();
    const seen: (readonly E[])[] = [];
    source.pipe(coalesceBursts<TestPod>()).subscribe((batch) => seen.push(batch));
    const first = [added('a')];
    source.next(first);
    source.next(added('b'));
    source.next([added('c')]);
    await Promise.resolve();
    expect(first).to.deep.equal([added('a')]);
    expect(seen).to.deep.equal([[added('a'), added('b'), added('c')]]);
  });

  it('starts a new burst for a delta emitted while a batch is being delivered', async () => {
    const source = new Subject<E>();
    const seen: string[][] = [];
    source.pipe(coalesceBursts<TestPod>()).subscribe((batch) => {
      seen.push(batch.map((event) => ('object' in event ? event.object.metadata!.name! : event.type)));
      if (seen.length === 1) source.next(added('late'));
    });
    source.next(added('a'));
    source.next(added('b'));
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).to.deep.equal([['a', 'b'], ['late']]);
  });

  it('rejects a scheduler that is not an RxJS scheduler with a clear error', () => {
    expect(() => coalesceBursts({} as never)).to.throw(TypeError, /SchedulerLike/);
  });

  it('emits every delta exactly once and in order, one batch per non-empty burst, whatever the bursts (property)', () => {
    const item = fc.oneof(
      fc.integer({ min: 0, max: 99 }).map((n) => added(`p${n}`)),
      fc.array(
        fc.integer({ min: 0, max: 99 }).map((n) => added(`q${n}`)),
        { maxLength: 4 },
      ),
    );
    fc.assert(
      fc.property(fc.array(fc.array(item, { maxLength: 6 }), { maxLength: 8 }), (bursts) => {
        const scheduler = testScheduler();
        const batches: (readonly E[])[] = [];
        let completed = false;
        const source = new Observable<E | E[]>((subscriber: Subscriber<E | E[]>) => {
          bursts.forEach((burst, frame) =>
            scheduler.schedule(() => burst.forEach((value) => subscriber.next(value)), frame * 10),
          );
          scheduler.schedule(() => subscriber.complete(), bursts.length * 10);
        });
        source
          .pipe(coalesceBursts(scheduler))
          .subscribe({ next: (batch) => batches.push(batch), complete: () => (completed = true) });
        scheduler.flush();
        const expected = bursts.map((burst) => burst.flat()).filter((burst) => burst.length > 0);
        expect(batches).to.deep.equal(expected);
        expect(completed).to.equal(true);
      }),
      { numRuns: 200 },
    );
  });

  it('makes a synchronous burst of single deltas one snapshot of an informer, each event seeing its change', async () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source.pipe(coalesceBursts<TestPod>()));
    const snapshots: Store<TestPod>[] = [];
    informer.store$.subscribe((store) => snapshots.push(store));
    const keys: string[] = [];
    informer.events$.subscribe((event) => {
      keys.push(event.key);
      expect(event.snapshot.get(event.key)).to.equal(event.object);
    });
    source.next(added('a'));
    source.next(added('b'));
    source.next(modified('a', '2'));
    source.next(added('c'));
    expect(snapshots, 'nothing before the flush').to.have.length(1);
    await Promise.resolve();
    expect(keys).to.deep.equal(['default/a', 'default/b', 'default/a', 'default/c']);
    expect(snapshots, 'initial, [a b], then [a c]: cut where a changes twice').to.have.length(3);
    expect(snapshots[2]!.size).to.equal(3);
  });
});
