import { expect } from 'chai';
import { Subject, firstValueFrom, mergeMap, of, take, throwError, timer, toArray } from 'rxjs';
import { InvalidReconcileResultError, TerminalError, reconcile } from '../../../src/controller/index.js';
import type {
  RateLimiter,
  ReconcileEvent,
  ReconcileKeyFn,
  ReconcileResult,
  ReconcileTrigger,
} from '../../../src/controller/index.js';
import { record, timeline, virtual } from '../helpers.js';

/** Triggers `key` once in real time and resolves with the first `count` events. */
async function firstEvents(fn: ReconcileKeyFn, count: number, key = 'k'): Promise<ReconcileEvent[]> {
  const triggers = new Subject<ReconcileTrigger | string>();
  const events = firstValueFrom(triggers.pipe(reconcile(fn, { globalRateLimiter: false }), take(count), toArray()));
  triggers.next(key);
  return events;
}

describe('reconcile: failures, panics, retries limits and bad input', () => {
  it('drops a key with a dropped event once maxRetries retries failed, and starts over on the next trigger', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('a 49ms a').pipe(reconcile(() => cold<never>(call++ < 3 ? '#' : '|'), { maxRetries: 2 }));
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '0 failed a',
      '0 retrying a +5',
      '5 started a#2',
      '5 failed a',
      '5 retrying a +10',
      '15 started a#3',
      '15 failed a',
      '15 dropped a',
      '50 started a#1',
      '50 succeeded a',
    ]);
  });

  it('never retries a TerminalError but runs the key again on a fresh trigger', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const out$ = hot('a 19ms a').pipe(
        reconcile(() =>
          scheduler.now() === 0 ? cold<never>('#', undefined, new TerminalError('bad spec')) : cold<never>('|'),
        ),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal(['0 started a#1', '0 failed a terminal', '20 started a#1', '20 succeeded a']);
  });

  const panics: [string, () => ReturnType<ReconcileKeyFn>][] = [
    [
      'a synchronous throw',
      () => {
        throw new Error('boom');
      },
    ],
    ['a rejected promise', () => Promise.reject(new Error('boom'))],
    ['an observable erroring at once', () => throwError(() => new Error('boom'))],
    ['an observable erroring later', () => timer(1).pipe(mergeMap(() => throwError(() => new Error('boom'))))],
  ];
  for (const [name, panic] of panics) {
    it(`turns ${name} into failed and retrying, and the stream survives to succeed`, async () => {
      const events = await firstEvents(({ attempt }) => (attempt === 1 ? panic() : undefined), 5);
      expect(events.map((event) => event.type)).to.deep.equal([
        'started',
        'failed',
        'retrying',
        'started',
        'succeeded',
      ]);
      const failed = events[1]!;
      expect(failed.type === 'failed' && (failed.error as Error).message).to.equal('boom');
    });
  }

  it('takes the first value of an Observable result as the result and unsubscribes from the rest', () => {
    const lines = virtual(({ hot, cold, scheduler, expectSubscriptions }) => {
      const chatty = cold<ReconcileResult>('--r--#', { r: { requeueAfter: 10 } });
      const out$ = hot('a').pipe(
        reconcile(({ attempt, reasons }) => (attempt === 1 && reasons.length === 0 ? chatty : cold<never>('|'))),
      );
      expectSubscriptions(chatty.subscriptions).toBe('^-!');
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '2 succeeded a',
      '2 requeued a +10',
      '12 started a#1',
      '12 succeeded a',
    ]);
  });

  it('counts a lookup that throws as a failure of the run', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let calls = 0;
      const lookup = (): string => {
        if (calls++ === 0) throw new Error('store unavailable');
        return 'object';
      };
      return timeline(hot('a').pipe(reconcile<string>(() => cold<never>('|'), { lookup })), scheduler);
    });
    expect(lines).to.deep.equal(['0 started a#1', '0 failed a', '0 retrying a +5', '5 started a#2', '5 succeeded a']);
  });

  const brokenRequeues: [string, unknown][] = [
    ['a negative delay', { requeueAfter: -1 }],
    ['a string delay', { requeueAfter: '5s' }],
    ['an undefined delay', { requeueAfter: undefined }],
    ['an infinite delay', { requeueAfter: Number.POSITIVE_INFINITY }],
    ['NaN', { requeueAfter: Number.NaN }],
  ];
  for (const [name, result] of brokenRequeues) {
    it(`reports a requeueAfter of ${name} as a failure with a clear error`, async () => {
      const events = await firstEvents(() => result, 3);
      expect(events.map((event) => event.type)).to.deep.equal(['started', 'failed', 'retrying']);
      const failed = events[1]!;
      expect(failed.type === 'failed' && failed.error).to.be.instanceOf(InvalidReconcileResultError);
      expect(failed.type === 'failed' && (failed.error as Error).message).to.match(/requeueAfter/);
    });
  }

  it('reports a requeueAfter getter that throws as an invalid result, not a crash', async () => {
    const trap = Object.defineProperty({}, 'requeueAfter', {
      get: () => {
        throw new Error('getter');
      },
      enumerable: false,
    });
    const events = await firstEvents(() => trap, 3);
    expect(events.map((event) => event.type)).to.deep.equal(['started', 'failed', 'retrying']);
    const failed = events[1]!;
    expect(failed.type === 'failed' && failed.error).to.be.instanceOf(InvalidReconcileResultError);
  });

  it('reports a result whose then getter throws as a failure, not a crash', async () => {
    const hostile = Object.defineProperty({}, 'then', {
      get: () => {
        throw new Error('then getter');
      },
    });
    const events = await firstEvents(({ attempt }) => (attempt === 1 ? hostile : undefined), 5);
    expect(events.map((event) => event.type)).to.deep.equal(['started', 'failed', 'retrying', 'started', 'succeeded']);
    const failed = events[1]!;
    expect(failed.type === 'failed' && (failed.error as Error).message).to.equal('then getter');
  });

  it('accepts a plain value, a resolved Promise and a bare-completing Observable as success', async () => {
    for (const fn of [
      () => undefined,
      () => Promise.resolve(),
      () => new Subject<never>().pipe(take(0)),
    ] as ReconcileKeyFn[]) {
      const events = await firstEvents(fn, 2);
      expect(events.map((event) => event.type)).to.deep.equal(['started', 'succeeded']);
    }
  });

  it('treats any result without a requeueAfter property as success, such as the object an API call returned', async () => {
    const patched = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', resourceVersion: '7' } };
    const results: unknown[] = [patched, null, 'ok', 42, false, [1, 2], { requeueAftr: 5 }];
    for (const value of results) {
      for (const fn of [() => value, () => Promise.resolve(value), () => of(value)] as ReconcileKeyFn[]) {
        const events = await firstEvents(fn, 2);
        expect(
          events.map((event) => event.type),
          `result ${JSON.stringify(value)}`,
        ).to.deep.equal(['started', 'succeeded']);
      }
    }
  });

  it('still requeues when an Observable of an API object is mapped to { requeueAfter }', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('a').pipe(
        reconcile(() =>
          call++ === 0
            ? cold('2ms (p|)', { p: { kind: 'Pod', requeueAfter: 3 } })
            : cold('1ms (p|)', { p: { kind: 'Pod' } }),
        ),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '2 succeeded a',
      '2 requeued a +3',
      '5 started a#1',
      '6 succeeded a',
    ]);
  });

  it('reports malformed triggers as rejected events and keeps serving good ones', () => {
    const result = virtual(({ hot, cold, scheduler }) => {
      const bad = hot<ReconcileTrigger | string>('abcd', {
        a: '',
        b: { key: 7 } as unknown as ReconcileTrigger,
        c: null as unknown as string,
        d: 'ok',
      });
      return record(bad.pipe(reconcile(() => cold<never>('|'))), scheduler);
    });
    expect(result.lines).to.deep.equal(['0 rejected', '1 rejected', '2 rejected', '3 started ok#1', '3 succeeded ok']);
    const rejected = result.events[1]!;
    expect(rejected.type === 'rejected' && rejected.error.message).to.match(/non-empty key string/);
  });

  it('survives a rate limiter that throws, retrying at the maximum delay and reporting the limiter error', () => {
    const broken: RateLimiter = {
      when: () => {
        throw new Error('limiter bug');
      },
      forget() {},
    };
    const events = virtual(
      ({ hot, cold, scheduler }) =>
        record(
          hot('a').pipe(reconcile(({ attempt }) => cold<never>(attempt === 1 ? '#' : '|'), { rateLimiter: broken })),
          scheduler,
        ).events,
    );
    const retrying = events.find((event) => event.type === 'retrying');
    expect(retrying?.type === 'retrying' && retrying.delayMs).to.equal(1_000_000);
    expect(retrying?.type === 'retrying' && (retrying.limiterError as Error).message).to.equal('limiter bug');
    expect(events.at(-1)).to.include({ type: 'succeeded', time: 1_000_000 });
  });

  it('rejects bad options when the operator is created', () => {
    expect(() => reconcile(() => undefined, { concurrency: 0 })).to.throw(RangeError, /concurrency/);
    expect(() => reconcile(() => undefined, { timeout: -5 })).to.throw(RangeError, /timeout/);
    expect(() => reconcile(() => undefined, { maxRetries: 1.5 })).to.throw(RangeError, /maxRetries/);
    expect(() => reconcile(() => undefined, { drainTimeout: Number.NaN })).to.throw(RangeError, /drainTimeout/);
  });

  it('forwards an error of the source itself rather than hiding it', () => {
    const lines = virtual(({ hot, scheduler }) => timeline(hot('a#').pipe(reconcile(() => undefined)), scheduler));
    expect(lines).to.deep.equal(['0 started a#1', '0 succeeded a', '1 error error']);
  });
});
