/**
 * The marble helpers of rxkube/testing: watch deltas from marbles, fake informers, and reconcile marbles.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { map, share, takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  informerFactory, reconcile, TerminalError, toKeys, type InformerEvent, type ReconcileEvent, type WatchEvent,
} from '../../../src/index.js';
import {
  expectReconciles, fakeInformer, informerEventMarbles, marbleSource, watchEvent, watchMarbles,
} from '../../../src/testing/index.js';
import { virtual } from '../../controller/helpers.js';

const node = (name: string, resourceVersion: string, labels?: Record<string, string>): V1Node =>
  ({ metadata: { name, resourceVersion, ...(labels ? { labels } : {}) } });
const a1 = node('a', '1');
const a2 = node('a', '2', { x: 'y' });
const b3 = node('b', '3');

const describeEvent = (e: InformerEvent<V1Node>): string => `${e.type} ${e.key}@${e.object.metadata?.resourceVersion}`;

describe('watch marbles', () => {
  it('turns plain objects into added then modified, and keeps watch events as given', () => {
    virtual((helpers) => {
      const events$ = watchMarbles<V1Node>(helpers, 'a 9ms b 9ms c 9ms d', {
        a: watchEvent.relist([a1]), b: a2, c: b3, d: watchEvent.deleted(a2),
      });
      helpers.expectObservable(events$.pipe(map((e: WatchEvent<V1Node>) => ('object' in e ? `${e.type}:${e.object.metadata?.name}` : e.type)))).toBe(
        '(abc) 5ms d 9ms e 9ms f',
        { a: 'relistStarted', b: 'listed:a', c: 'relistDone', d: 'modified:a', e: 'added:b', f: 'deleted:a' },
      );
    });
  });

  it('errors the stream, naming the value, for a value that is neither a watch event nor an object', () => {
    virtual((helpers) => {
      const events$ = watchMarbles(helpers, '-a', { a: { nonsense: true } as never });
      helpers.expectObservable(events$).toBe('-#', undefined, new TypeError('watch marble: a value must be a WatchEvent or an object with metadata.name, got {"nonsense":true}'));
    });
  });

  it('relist ends at the highest resourceVersion of its objects', () => {
    expect(watchEvent.relist([a1, b3]).at(-1)).to.deep.equal({ type: 'relistDone', resourceVersion: '3' });
    expect(watchEvent.relist([]).at(-1)).to.deep.equal({ type: 'relistDone', resourceVersion: '1' });
  });
});

describe('fakeInformer', () => {
  it('from a list of objects is synced at once and serves them from current()', () => {
    const informer = fakeInformer([a1, b3]);
    const synced: boolean[] = [];
    const subscription = informer.synced$.subscribe((value) => synced.push(value));
    expect(synced).to.deep.equal([false, true]);
    expect(informer.current().list().map((n) => n.metadata?.name)).to.deep.equal(['a', 'b']);
    subscription.unsubscribe();
  });

  it('from a marble produces the informer events a live informer would, tombstones of a relist included', () => {
    virtual((helpers) => {
      const events$ = informerEventMarbles<V1Node>(helpers, 'a 9ms b 9ms c', {
        a: watchEvent.relist([a1, b3]), b: a2, c: watchEvent.relist([a2]),
      });
      helpers.expectObservable(events$.pipe(map(describeEvent))).toBe('(ab) 6ms c 9ms d', {
        a: 'added a@1', b: 'added b@3', c: 'updated a@2', d: 'deleted b@3',
      });
    });
  });

  it('serves an informerFactory through marbleSource, and names a resource the test forgot', () => {
    virtual((helpers) => {
      const factory = informerFactory(undefined as never, {
        source: marbleSource(helpers, { 'v1/Node': { marble: 'a', values: { a: watchEvent.relist([a1]) } } }),
      });
      helpers.expectObservable(factory.for<V1Node>({ apiVersion: 'v1', kind: 'Node' }).synced$).toBe('(ft)', { f: false, t: true });
      helpers.expectObservable(factory.for({ apiVersion: 'v1', kind: 'Pod' }).synced$).toBe(
        '(f#)', { f: false }, new TypeError('marbleSource: no marble for v1/Pod; known: v1/Node'),
      );
    });
  });
});

describe('expectReconciles', () => {
  it('writes a controller\'s runs as letters: success, requeue, failure, retry, terminal failure', () => {
    virtual((helpers) => {
      const nodes = fakeInformer<V1Node>(helpers, 'a 19ms b 19ms c', {
        a: watchEvent.relist([node('ok', '1'), node('later', '1')]), b: node('boom', '2'), c: node('final', '3'),
      });
      const failures = new Map<string, number>();
      let requeues = 0;
      const events$ = nodes.events$.pipe(
        toKeys(),
        reconcile(({ key }) => {
          if (key === 'later' && requeues++ === 0) return { requeueAfter: 10 };
          if (key === 'final') throw new TerminalError('no');
          if (key === 'boom' && (failures.set(key, (failures.get(key) ?? 0) + 1).get(key) ?? 0) < 2) throw new Error('once');
          return undefined;
        }, { lookup: nodes, gate: nodes.synced$ }),
        takeUntil(timer(60)),
        share(), // one controller, three assertions
      );
      // Frames are milliseconds; a group (…) takes as many frames as it has characters.
      expectReconciles(helpers, events$).toBe('(sSsSq) 3ms (sS) 6ms (sfr)(sS) 11ms (st) 16ms |');
      expectReconciles(helpers, events$, { key: 'boom' }).toBe('20ms (sfr)(sS) 31ms |');
      expectReconciles(helpers, events$, { key: 'boom' }).toBe('20ms (sfR)(sS) 31ms |', { R: { type: 'retrying', delayMs: 5, failures: 1 } });
    });
  });

  it('shows an event that misses a redefined letter\'s pattern as "?"', () => {
    const failures: unknown[] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      failures.push([actual, expected]);
    });
    scheduler.run((helpers) => {
      const events$ = helpers.cold<ReconcileEvent>('a|', {
        a: { type: 'retrying', key: 'k', attempt: 1, reasons: [], queueWaitMs: 0, time: 0, durationMs: 0, error: 1, delayMs: 20, failures: 1 },
      });
      expectReconciles(helpers, events$).toBe('r|', { r: { type: 'retrying', delayMs: 10 } });
    });
    expect(JSON.stringify(failures)).to.contain('"?"');
  });
});
