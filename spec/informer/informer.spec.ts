import { expect } from 'chai';
import { Subject, config, map, of, take, throwError, NEVER, concat, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { WatchEvent } from '../../src/watch/index.js';
import { informerFromSource, type InformerEvent } from '../../src/informer/index.js';
import { pod, type TestPod } from '../store/fixtures.js';

type E = WatchEvent<TestPod>;
const started: E = { type: 'relistStarted' };
const listed = (name: string, rv = '1'): E => ({ type: 'listed', object: pod(name, rv) });
const done = (rv = '1'): E => ({ type: 'relistDone', resourceVersion: rv });
const added = (name: string, rv = '1'): E => ({ type: 'added', object: pod(name, rv) });
const modified = (name: string, rv: string): E => ({ type: 'modified', object: pod(name, rv) });
const deleted = (name: string, rv: string): E => ({ type: 'deleted', object: pod(name, rv) });

/** `type:name` of an informer event, short enough for marble values. */
const label = (event: InformerEvent<TestPod>) => `${event.type}:${event.object.metadata!.name}`;
const labels = (events$: Observable<InformerEvent<TestPod>>) => events$.pipe(map(label));

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

describe('informerFromSource', () => {
  it('returns an empty unsynced store from current() before anything subscribed', () => {
    const informer = informerFromSource<TestPod>(NEVER);
    expect(informer.current().size).to.equal(0);
    expect(informer.current().synced).to.equal(false);
  });

  it('rejects a negative resyncPeriod at once', () => {
    expect(() => informerFromSource<TestPod>(NEVER, { resyncPeriod: -1 })).to.throw(RangeError, /resyncPeriod/);
  });

  it('emits added, updated and deleted in order, after the store applied them', () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source);
    const seen: string[] = [];
    informer.events$.subscribe((event) => {
      const cached = informer.current().get(event.key);
      seen.push(`${label(event)} cached=${cached?.metadata?.resourceVersion ?? 'none'}`);
      expect(event.snapshot).to.equal(informer.current());
    });
    [started, listed('a'), done(), modified('a', '2'), deleted('a', '3')].forEach((e) => source.next(e));
    expect(seen).to.deep.equal(['added:a cached=1', 'updated:a cached=2', 'deleted:a cached=none']);
  });

  it('carries old and new objects on updated and the tombstone flag on deleted', () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source);
    const events: InformerEvent<TestPod>[] = [];
    informer.events$.subscribe((event) => events.push(event));
    [started, listed('a'), listed('b'), done(), modified('a', '2'), started, listed('a', '2'), done('5')].forEach((e) =>
      source.next(e),
    );
    const updated = events.find((e) => e.type === 'updated');
    expect(updated?.type === 'updated' && updated.old.metadata!.resourceVersion).to.equal('1');
    const tombstone = events.at(-1)!;
    expect(tombstone.type === 'deleted' && tombstone.stateUnknown).to.equal(true);
    expect(tombstone.key).to.equal('default/b');
  });

  it('replays the current snapshot as added to a late subscriber, then live events, with no gap and no duplicate', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const source = hot<E>('a-b-c---d-', { a: started, b: listed('x'), c: done(), d: added('y') });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(labels(informer.events$), '^').toBe('----x---y-', { x: 'added:x', y: 'added:y' });
      expectObservable(labels(informer.events$), '------^').toBe('------x-y-', { x: 'added:x', y: 'added:y' });
    });
  });

  it("delivers an event caused during a late subscriber's replay after the replay", () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source);
    informer.events$.subscribe();
    [started, listed('a'), listed('b'), done()].forEach((e) => source.next(e));
    const seen: string[] = [];
    let poked = false;
    informer.events$.subscribe((event) => {
      seen.push(label(event));
      if (!poked) {
        poked = true;
        source.next(added('c'));
      }
    });
    expect(seen.slice(0, 2).sort()).to.deep.equal(['added:a', 'added:b']);
    expect(seen.slice(2)).to.deep.equal(['added:c']);
  });

  it('emits synced false then true once, and replays the latest value', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const source = hot<E>('a-b-c-d-e', { a: started, b: listed('x'), c: done(), d: started, e: done('2') });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(informer.synced$, '^').toBe('f---t----', { f: false, t: true });
      expectObservable(informer.synced$, '-----^').toBe('-----t---', { t: true });
    });
  });

  it('emits the current snapshot on subscribe to store$, then every new snapshot', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const source = hot<E>('a-b-c-d', { a: started, b: listed('x'), c: done(), d: added('y') });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(informer.store$.pipe(map((s) => s.size)), '^').toBe('0---1-2', { 0: 0, 1: 1, 2: 2 });
      expectObservable(informer.store$.pipe(map((s) => s.size)), '---^').toBe('---01-2', { 0: 0, 1: 1, 2: 2 });
    });
  });

  it('replays the latest status and keeps object problems off it, on problems$ with running counts', () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source);
    const problems: string[] = [];
    informer.events$.subscribe();
    informer.problems$.subscribe((p) => problems.push(`${p.reason}:${p.count}`));
    source.next({ type: 'status', status: { state: 'watching', resourceVersion: '1' } });
    const late: string[] = [];
    informer.status$.subscribe((status) => late.push(status.state));
    source.next({ type: 'added', object: { kind: 'Pod', metadata: {} } as TestPod });
    source.next({ type: 'problem', problem: { reason: 'MalformedLine', message: 'bad line', count: 1 } });
    source.next({ type: 'added', object: { kind: 'Pod', metadata: {} } as TestPod });
    expect(late, 'a healthy watch stays healthy').to.deep.equal(['watching']);
    expect(problems).to.deep.equal(['MissingName:1', 'MalformedLine:1', 'MissingName:2']);
  });

  it('reports a delta the store cannot apply as a StoreFailed problem and keeps serving the next ones', () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source);
    const seen: string[] = [];
    informer.events$.subscribe((event) => seen.push(label(event)));
    informer.problems$.subscribe((problem) => seen.push(`problem:${problem.reason}:${problem.key}`));
    informer.status$.subscribe((status) => seen.push(`status:${status.state}`));
    source.next(started);
    source.next(done());
    // Well-formed metadata, so the key is found, but a field that throws when the store freezes the object.
    const hostile = {
      kind: 'Pod',
      metadata: { name: 'hostile', namespace: 'default', resourceVersion: '2' },
      get spec(): never {
        throw new Error('spec getter exploded');
      },
    } as unknown as TestPod;
    source.next({ type: 'added', object: hostile });
    source.next(added('after'));
    expect(seen).to.deep.equal(['problem:StoreFailed:default/hostile', 'added:after']);
    expect(informer.current().get('default/after')).to.not.equal(undefined);
  });

  it('subscribes the source at the first subscriber and unsubscribes it when the last one leaves', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<E>('a-b-c---', { a: started, b: listed('x'), c: done() });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(informer.synced$, '--^-----!').toBe('--f---t-', { f: false, t: true });
      expectObservable(labels(informer.events$), '----^-----!').toBe('------x---', { x: 'added:x' });
      expectSubscriptions(source.subscriptions).toBe('--^-------!');
    });
  });

  it('starts afresh with an empty store when subscribed again after everyone left', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<E>('a-b-c-d', { a: started, b: listed('x'), c: done(), d: added('y') });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(labels(informer.events$), '^------!').toBe('----x-y', { x: 'added:x', y: 'added:y' });
      expectObservable(labels(informer.events$), '---------^--------!').toBe('-------------x-y', {
        x: 'added:x',
        y: 'added:y',
      });
      expectSubscriptions(source.subscriptions).toBe(['^------!', '---------^--------!']);
    });
  });

  it('lets a late subscriber leave during its replay without holding the watch open', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<E>('a-b-c-d', { a: started, b: listed('x'), c: listed('y'), d: done() });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(informer.synced$, '^-------!').toBe('f-----t-', { f: false, t: true });
      expectObservable(labels(informer.events$).pipe(take(1)), '-------^').toBe('-------(a|)', { a: 'added:x' });
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
  });

  it('keeps the last snapshot in current() after everyone left', () => {
    const informer = informerFromSource<TestPod>(concat(of(started, listed('a'), done()), NEVER));
    informer.events$.subscribe().unsubscribe();
    expect(informer.current().size).to.equal(1);
  });

  it('re-emits every cached object as resync each resyncPeriod, on the scheduler', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const source = hot<E>('a-b-c', { a: started, b: listed('x'), c: done() });
      const informer = informerFromSource<TestPod>(source, { resyncPeriod: 10 });
      expectObservable(labels(informer.events$), '^-----------------------!').toBe('----a-----r---------r---', {
        a: 'added:x',
        r: 'resync:x',
      });
    });
  });

  it('does not resync when resyncPeriod is off', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const source = hot<E>('a-b-c', { a: started, b: listed('x'), c: done() });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(labels(informer.events$), '^------------------------------!').toBe('----a', { a: 'added:x' });
    });
  });

  it('keeps delivering to other subscribers when one subscriber throws', async () => {
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      const source = new Subject<E>();
      const informer = informerFromSource<TestPod>(source);
      informer.events$.subscribe(() => {
        throw new Error('bad handler');
      });
      const seen: string[] = [];
      informer.events$.subscribe((event) => seen.push(label(event)));
      source.next(added('a'));
      source.next(added('b'));
      expect(seen).to.deep.equal(['added:a', 'added:b']);
      // RxJS reports errors thrown by subscriber callbacks asynchronously; wait for the reports to land.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(reported.map((e) => (e as Error).message)).to.deep.equal(['bad handler', 'bad handler']);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it('delivers events in order to every listener when a handler makes the source emit re-entrantly', () => {
    const source = new Subject<E>();
    const informer = informerFromSource<TestPod>(source);
    informer.events$.subscribe((event) => {
      if (event.key === 'default/a') source.next(added('b'));
    });
    const seen: string[] = [];
    informer.events$.subscribe((event) => seen.push(label(event)));
    source.next(added('a'));
    expect(seen).to.deep.equal(['added:a', 'added:b']);
  });

  it('errors every stream when the source errors', () => {
    const informer = informerFromSource<TestPod>(throwError(() => new Error('gone')));
    const errors: string[] = [];
    informer.events$.subscribe({ error: (e: Error) => errors.push(`events ${e.message}`) });
    informer.store$.subscribe({ error: (e: Error) => errors.push(`store ${e.message}`) });
    expect(errors).to.deep.equal(['events gone', 'store gone']);
  });

  it('completes every stream when the source completes', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold<E>('a-|', { a: added('x') });
      const informer = informerFromSource<TestPod>(source);
      expectObservable(labels(informer.events$)).toBe('a-|', { a: 'added:x' });
      expectObservable(informer.synced$).toBe('f-|', { f: false });
    });
  });
});
