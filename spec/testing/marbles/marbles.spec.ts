/**
 * The marble helpers of rxkube/testing: watch deltas from marbles, fake informers, and reconcile marbles.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { map, share, takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  informerFactory,
  reconcile,
  TerminalError,
  toKeys,
  type InformerEvent,
  type ReconcileEvent,
} from '../../../src/index.js';
import type { WatchEvent } from '../../../src/extend.js';
import {
  expectReconciles,
  fakeInformer,
  informerEventMarbles,
  marbleSource,
  watchEvent,
  watchMarbles,
} from '../../../src/testing/index.js';
import { virtual } from '../../controller/helpers.js';

const node = (name: string, resourceVersion: string, labels?: Record<string, string>): V1Node => ({
  metadata: { name, resourceVersion, ...(labels ? { labels } : {}) },
});
const a1 = node('a', '1');
const a2 = node('a', '2', { x: 'y' });
const b3 = node('b', '3');

const describeEvent = (e: InformerEvent<V1Node>): string => `${e.type} ${e.key}@${e.object.metadata?.resourceVersion}`;

describe('watch marbles', () => {
  it('turns plain objects into added then modified, and keeps watch events as given', () => {
    virtual((helpers) => {
      const events$ = watchMarbles<V1Node>(helpers, 'a 9ms b 9ms c 9ms d', {
        a: watchEvent.relist([a1]),
        b: a2,
        c: b3,
        d: watchEvent.deleted(a2),
      });
      helpers
        .expectObservable(
          events$.pipe(
            map((e: WatchEvent<V1Node>) => ('object' in e ? `${e.type}:${e.object.metadata?.name}` : e.type)),
          ),
        )
        .toBe('(abc) 5ms d 9ms e 9ms f', {
          a: 'relistStarted',
          b: 'listed:a',
          c: 'relistDone',
          d: 'modified:a',
          e: 'added:b',
          f: 'deleted:a',
        });
    });
  });

  it('errors the stream, naming the value, for a value that is neither a watch event nor an object', () => {
    virtual((helpers) => {
      const events$ = watchMarbles(helpers, '-a', { a: { nonsense: true } as never });
      helpers
        .expectObservable(events$)
        .toBe(
          '-#',
          undefined,
          new TypeError(
            'watch marble: a value must be a WatchEvent or an object with metadata.name, got {"nonsense":true}',
          ),
        );
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
    expect(
      informer
        .current()
        .list()
        .map((n) => n.metadata?.name),
    ).to.deep.equal(['a', 'b']);
    subscription.unsubscribe();
  });

  it('from a marble produces the informer events a live informer would, tombstones of a relist included', () => {
    virtual((helpers) => {
      const events$ = informerEventMarbles<V1Node>(helpers, 'a 9ms b 9ms c', {
        a: watchEvent.relist([a1, b3]),
        b: a2,
        c: watchEvent.relist([a2]),
      });
      helpers.expectObservable(events$.pipe(map(describeEvent))).toBe('(ab) 6ms c 9ms d', {
        a: 'added a@1',
        b: 'added b@3',
        c: 'updated a@2',
        d: 'deleted b@3',
      });
    });
  });

  it('serves an informerFactory through marbleSource, and names a resource the test forgot', () => {
    virtual((helpers) => {
      const factory = informerFactory(undefined as never, {
        source: marbleSource(helpers, { 'v1/Node': { marble: 'a', values: { a: watchEvent.relist([a1]) } } }),
      });
      helpers
        .expectObservable(factory.for<V1Node>({ apiVersion: 'v1', kind: 'Node' }).synced$)
        .toBe('(ft)', { f: false, t: true });
      helpers
        .expectObservable(factory.for({ apiVersion: 'v1', kind: 'Pod' }).synced$)
        .toBe('(f#)', { f: false }, new TypeError('marbleSource: no marble for v1/Pod; known: v1/Node'));
    });
  });
});

describe('expectReconciles', () => {
  it("writes a controller's runs as letters: success, requeue, failure, retry, terminal failure", () => {
    virtual((helpers) => {
      const nodes = fakeInformer<V1Node>(helpers, 'a 19ms b 19ms c', {
        a: watchEvent.relist([node('ok', '1'), node('later', '1')]),
        b: node('boom', '2'),
        c: node('final', '3'),
      });
      const failures = new Map<string, number>();
      let requeues = 0;
      const events$ = nodes.events$.pipe(
        toKeys(),
        reconcile(
          ({ key }) => {
            if (key === 'later' && requeues++ === 0) return { requeueAfter: 10 };
            if (key === 'final') throw new TerminalError('no');
            if (key === 'boom' && (failures.set(key, (failures.get(key) ?? 0) + 1).get(key) ?? 0) < 2)
              throw new Error('once');
            return undefined;
          },
          { lookup: nodes, gate: nodes.synced$ },
        ),
        takeUntil(timer(60)),
        share(), // one controller, three assertions
      );
      // Frames are milliseconds; a group (…) takes as many frames as it has characters.
      expectReconciles(helpers, events$).toBe('(sSsSq) 3ms (sS) 6ms (sfr)(sS) 11ms (st) 16ms |');
      expectReconciles(helpers, events$, { key: 'boom' }).toBe('20ms (sfr)(sS) 31ms |');
      expectReconciles(helpers, events$, { key: 'boom' }).toBe('20ms (sfR)(sS) 31ms |', {
        R: { type: 'retrying', delayMs: 5, failures: 1 },
      });
    });
  });

  it('shows an event that misses a redefined letter\'s pattern as "?"', () => {
    const failure = failureOf((helpers) => {
      const events$ = helpers.cold<ReconcileEvent>('a|', { a: retrying('k', 20) });
      expectReconciles(helpers, events$).toBe('r|', { r: { type: 'retrying', delayMs: 10 } });
    });
    expect(failure.actual).to.equal('? |');
  });

  it('prints a mismatch as the expected and the actual marble with the legend of their letters, not as frames of JSON', () => {
    const failure = failureOf((helpers) => {
      const events$ = helpers.cold<ReconcileEvent>('a 9ms (bc) 3ms (de|)', {
        a: started('k', 1),
        b: failed('k', 1),
        c: retrying('k', 5),
        d: started('k', 2),
        e: failed('k', 2),
      });
      expectReconciles(helpers, events$).toBe('s 9ms (fr) 3ms (sS|)');
    });
    expect(failure.message).to.equal(
      [
        'expectReconciles: the reconcile marbles differ',
        '  expected: s 9ms (fr) 3ms (sS|)',
        '  actual:   s 9ms (fr) 3ms (sf|)',
        '  first difference: expected S at 17 ms, got f at 17 ms (failed k: boom 2)',
        '  letters: S = succeeded, f = failed, r = retrying, s = started, | = complete',
      ].join('\n'),
    );
    expect(failure.expected).to.equal('s 9ms (fr) 3ms (sS|)');
    expect(failure.showDiff).to.equal(true);
    // The detail behind the letters stays available.
    expect(failure.actualEvents).to.deep.equal([
      '0 ms s started k#1',
      '10 ms f failed k: boom 1',
      '10 ms r retrying k +5',
      '17 ms s started k#2',
      '17 ms f failed k: boom 2',
      '17 ms | complete',
    ]);
  });

  it('draws both marbles the same way, so they differ only where the events do, and names a pattern letter by its pattern', () => {
    const failure = failureOf((helpers) => {
      const events$ = helpers.cold<ReconcileEvent>('200ms a', { a: retrying('k', 5) });
      // `0ms` and `-` are other ways to write the same frames; an expected letter that never came is "nothing more".
      expectReconciles(helpers, events$).toBe('100ms - 0ms 99ms R 5ms R', { R: { type: 'retrying', delayMs: 5 } });
    });
    expect(failure.expected).to.equal('200ms R 5ms R');
    expect(failure.actual).to.equal('200ms R');
    expect(failure.message).to.contain('  first difference: expected R at 206 ms, got nothing more\n');
    expect(failure.message).to.contain('  letters: R = {"type":"retrying","delayMs":5}');
  });

  it('matches an error of the stream with #, and says the error', () => {
    virtual((helpers) => {
      expectReconciles(helpers, helpers.cold<ReconcileEvent>('a #', { a: started('k', 1) }, new Error('gone'))).toBe(
        's #',
      );
    });
    const failure = failureOf((helpers) => {
      expectReconciles(helpers, helpers.cold<ReconcileEvent>('a #', { a: started('k', 1) }, new Error('gone'))).toBe(
        's |',
      );
    });
    expect(failure.message).to.contain('first difference: expected | at 1 ms, got # at 1 ms (error: gone)');
  });
});

/** The error a run of `body` fails with; fails the spec when it passes. */
function failureOf(
  body: Parameters<TestScheduler['run']>[0],
): Error & { actual: string; expected: string; showDiff: boolean; actualEvents: string[] } {
  try {
    new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected)).run(body);
  } catch (error) {
    return error as never;
  }
  throw new Error('expected the run to fail');
}

const base = (key: string, attempt: number) => ({ key, attempt, reasons: [], queueWaitMs: 0, time: 0, durationMs: 0 });
const started = (key: string, attempt: number): ReconcileEvent =>
  ({ type: 'started', ...base(key, attempt) }) as ReconcileEvent;
const failed = (key: string, attempt: number): ReconcileEvent =>
  ({ type: 'failed', ...base(key, attempt), error: new Error(`boom ${attempt}`), terminal: false }) as ReconcileEvent;
const retrying = (key: string, delayMs: number): ReconcileEvent =>
  ({ type: 'retrying', ...base(key, 1), error: 1, delayMs, failures: 1 }) as ReconcileEvent;
