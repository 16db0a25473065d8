import { expect } from 'chai';
import { concat, from, map, timer } from 'rxjs';
import type { Observable } from 'rxjs';
import { reconcile, tokenBucketRateLimiter } from '../../../src/controller/index.js';
import type { ReconcileResult, ReconcileTrigger } from '../../../src/controller/index.js';
import { collect, fmt, timeline, virtual } from '../helpers.js';

describe('reconcile: coalescing, backoff, rate limit, requeue and ordering (marbles)', () => {
  it('runs a key triggered three times while it runs exactly twice, with the later reasons coalesced', () => {
    const events = virtual(({ hot, cold, expectObservable }) => {
      const triggers = hot<ReconcileTrigger>('a-b-c', {
        a: { key: 'x', reason: 'r1' },
        b: { key: 'x', reason: 'r2' },
        c: { key: 'x', reason: 'r3' },
      });
      const out$ = triggers.pipe(reconcile(() => cold<never>('10ms |')));
      expectObservable(out$.pipe(map(fmt))).toBe('s 9ms (tu) 6ms v', {
        s: 'started x#1',
        t: 'succeeded x',
        u: 'started x#1',
        v: 'succeeded x',
      });
      return collect(out$);
    });
    const started = events.filter((event) => event.type === 'started');
    expect(started.map((event) => event.reasons)).to.deep.equal([['r1'], ['r2', 'r3']]);
  });

  it('coalesces triggers for a waiting key into one run', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      // z holds the only slot while a and b are triggered twice each.
      const out$ = hot('(zabab)').pipe(reconcile(() => cold<never>('--|')));
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started z#1',
      '2 succeeded z',
      '2 started a#1',
      '4 succeeded a',
      '4 started b#1',
      '6 succeeded b',
    ]);
  });

  it('backs off 5, 10, 20 ms on consecutive failures and resets after a success', () => {
    const outcomes = ['#', '#', '#', '|', '#', '|'];
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('a 99ms a').pipe(reconcile(() => cold<never>(outcomes[call++] ?? '|')));
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
      '15 retrying a +20',
      '35 started a#4',
      '35 succeeded a',
      '100 started a#1',
      '100 failed a',
      '100 retrying a +5',
      '105 started a#2',
      '105 succeeded a',
    ]);
  });

  it('records retry and requeue as reasons of the runs they schedule, next to coalesced trigger reasons', () => {
    const events = virtual(({ hot, cold }) => {
      const outcomes = ['#', '(r|)', '|'];
      const triggers = hot<ReconcileTrigger>('a 5ms b', {
        a: { key: 'x', reason: 'added' },
        b: { key: 'x', reason: 'updated' },
      });
      let call = 0;
      return collect(
        triggers.pipe(reconcile(() => cold<ReconcileResult>(outcomes[call++] ?? '|', { r: { requeueAfter: 50 } }))),
      );
    });
    const starts = events.filter((event) => event.type === 'started');
    // The retry ran at 5 and asked for a requeue at 55; the trigger at 6 pulled that run forward and joined it.
    expect(starts.map((event) => `${event.time} ${event.reasons.join(',')}`)).to.deep.equal([
      '0 added',
      '5 retry',
      '6 requeue,updated',
    ]);
  });

  it('never spreads requeues by the token bucket: a requested requeue is a schedule, not a retry', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const seen = new Set<string>();
      const fn = ({ key }: { key: string }): Observable<ReconcileResult> => {
        const first = !seen.has(key);
        seen.add(key);
        return first ? cold<ReconcileResult>('(r|)', { r: { requeueAfter: 1 } }) : cold<never>('|');
      };
      const out$ = hot('(abcd)').pipe(
        reconcile(fn, { concurrency: 4, globalRateLimiter: tokenBucketRateLimiter({ qps: 100, burst: 2 }) }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '0 started c#1',
      '0 started d#1',
      '0 succeeded a',
      '0 requeued a +1',
      '0 succeeded b',
      '0 requeued b +1',
      '0 succeeded c',
      '0 requeued c +1',
      '0 succeeded d',
      '0 requeued d +1',
      '1 started a#1',
      '1 started b#1',
      '1 started c#1',
      '1 started d#1',
      '1 succeeded a',
      '1 succeeded b',
      '1 succeeded c',
      '1 succeeded d',
    ]);
  });

  it('retries a first failure after 5 ms however many requeues were scheduled before it (default limiters)', () => {
    // 2000 periodic resyncs used to drain the default bucket (10 qps, burst 100): the requeues stretched to 190 s and
    // a retry queued behind them.
    const keys = Array.from({ length: 2000 }, (_, i) => `ns/k${i}`);
    const lines = virtual(({ scheduler }) => {
      const triggers = concat(from(keys), timer(10, scheduler).pipe(map(() => 'ns/failing')));
      let failed = false;
      const resynced = new Set<string>();
      const out$ = triggers.pipe(
        reconcile(({ key }) => {
          if (key !== 'ns/failing') {
            if (resynced.has(key)) return undefined;
            resynced.add(key);
            return { requeueAfter: 60_000 };
          }
          if (failed) return undefined;
          failed = true;
          throw new Error('first failure');
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines.filter((line) => line.includes('ns/failing'))).to.deep.equal([
      '10 started ns/failing#1',
      '10 failed ns/failing',
      '10 retrying ns/failing +5',
      '15 started ns/failing#2',
      '15 succeeded ns/failing',
    ]);
    const requeueDelays = new Set(
      lines.filter((line) => line.includes(' requeued ')).map((line) => line.split(' +')[1]),
    );
    expect(requeueDelays).to.deep.equal(new Set(['60000']));
  });

  it('waits for the larger of the per-key delay and the bucket delay on retries', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('(ab)').pipe(
        reconcile(() => cold<never>(call++ < 2 ? '#' : '|'), {
          concurrency: 2,
          globalRateLimiter: tokenBucketRateLimiter({ qps: 100, burst: 1 }),
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '0 failed a',
      '0 retrying a +5',
      '0 failed b',
      '0 retrying b +10',
      '5 started a#2',
      '5 succeeded a',
      '10 started b#2',
      '10 succeeded b',
    ]);
  });

  it('turns the global bucket off with globalRateLimiter: false', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('(ab)').pipe(
        reconcile(() => (call++ < 2 ? cold<ReconcileResult>('(r|)', { r: { requeueAfter: 3 } }) : cold<never>('|')), {
          concurrency: 2,
          globalRateLimiter: false,
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines.filter((line) => line.includes('requeued'))).to.deep.equal(['0 requeued a +3', '0 requeued b +3']);
  });

  it('keeps the earliest time when a requeue meets a trigger that arrived during the run', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('x 4ms x').pipe(
        reconcile(() =>
          call++ === 0 ? cold<ReconcileResult>('10ms (r|)', { r: { requeueAfter: 50 } }) : cold<never>('|'),
        ),
      );
      return timeline(out$, scheduler);
    });
    // The requeue at 60 lost to the immediate run at 10, so there is no ghost run at 60.
    expect(lines).to.deep.equal([
      '0 started x#1',
      '10 succeeded x',
      '10 requeued x +0',
      '10 started x#1',
      '10 succeeded x',
    ]);
  });

  it('runs a key at once when a fresh trigger arrives before its scheduled requeue', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      const out$ = hot('x 19ms x').pipe(
        reconcile(() => (call++ === 0 ? cold<ReconcileResult>('(r|)', { r: { requeueAfter: 50 } }) : cold<never>('|'))),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started x#1',
      '0 succeeded x',
      '0 requeued x +50',
      '20 started x#1',
      '20 succeeded x',
    ]);
  });

  it('serves waiting keys FIFO and never exceeds the concurrency', () => {
    const durations: Record<string, string> = { a: '10ms |', b: '3ms |', c: '5ms |', d: '1ms |' };
    const lines = virtual(({ hot, cold, scheduler }) => {
      const out$ = hot('(abcd)').pipe(reconcile(({ key }) => cold<never>(durations[key]!), { concurrency: 2 }));
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '3 succeeded b',
      '3 started c#1',
      '8 succeeded c',
      '8 started d#1',
      '9 succeeded d',
      '10 succeeded a',
    ]);
  });

  it('orders a retried key by the time its delay ended, ahead of keys that became ready later', () => {
    const events = virtual(({ hot, cold }) => {
      let xCalls = 0;
      const fn = ({ key }: { key: string }): Observable<never> =>
        key === 'z' ? cold<never>('19ms |') : key === 'x' && xCalls++ === 0 ? cold<never>('#') : cold<never>('|');
      return collect(hot('xz 8ms y').pipe(reconcile(fn)));
    });
    const starts = events.filter((event) => event.type === 'started');
    expect(starts.map((event) => `${event.time} ${event.key} waited ${event.queueWaitMs}`)).to.deep.equal([
      '0 x waited 0',
      '1 z waited 0',
      '20 x waited 15',
      '20 y waited 10',
    ]);
  });

  it('serves a thousand held keys in arrival order once the gate opens', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `ns/k${(i * 7919) % 1000}`);
    const started = virtual(({ cold, hot }) => {
      const order: string[] = [];
      const triggers = cold<string>(`(${'x'.repeat(keys.length)})`).pipe(map((_, i) => keys[i]!));
      triggers.pipe(reconcile(({ key }) => void order.push(key), { gate: hot('--t', { t: true }) })).subscribe();
      return order;
    });
    expect(started).to.deep.equal(keys);
  });
});
