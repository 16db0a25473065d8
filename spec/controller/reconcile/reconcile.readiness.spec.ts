/**
 * The `readiness` hook of `reconcile`: a key's run waits for it, without a slot, absorbing its triggers; a stale
 * start is said on `started` and to the metrics hook (marbles).
 */
import { expect } from 'chai';
import { config, map, NEVER, Observable, Subject, timer } from 'rxjs';
import {
  bothMetrics,
  reconcile,
  type ReconcileReadiness,
  type ReconcileTrigger,
  type StaleRead,
} from '../../../src/controller/index.js';
import { collect, fmt, timeline, virtual } from '../helpers.js';

const stale = (waitedMs: number): StaleRead => ({ waitedMs, behind: [] });

describe('reconcile: the readiness hook (marbles)', () => {
  it('starts a key only when its readiness says so, and runs other keys meanwhile without giving it a slot', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const readiness: ReconcileReadiness = {
        wait: (key) => (key === 'a' ? cold<undefined>('10ms (u|)', { u: undefined }) : undefined),
      };
      const out$ = hot('(ab)').pipe(reconcile(() => cold<never>('--|'), { readiness, concurrency: 1 }));
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal(['0 started b#1', '2 succeeded b', '10 started a#1', '12 succeeded a']);
  });

  it('asks before every run, retries and requeues included, and tells began() each request right before the run', () => {
    const asked: string[] = [];
    const began: string[] = [];
    const lines = virtual(({ hot, cold, scheduler }) => {
      const readiness: ReconcileReadiness = {
        wait: (key) => {
          asked.push(`${scheduler.now()} ${key}`);
          return timer(3, scheduler).pipe(map(() => undefined));
        },
        began: (request) => began.push(`${scheduler.now()} ${request.key}#${request.attempt}`),
      };
      const results = ['#', '(r|)', '|'];
      let call = 0;
      const out$ = hot('a').pipe(
        reconcile(() => cold<never>(results[call++]!, { r: { requeueAfter: 10 } as never }), {
          readiness,
          globalRateLimiter: false,
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(asked).to.deep.equal(['0 a', '8 a', '21 a']);
    expect(began).to.deep.equal(['3 a#1', '11 a#2', '24 a#1']);
    expect(lines).to.deep.equal([
      '3 started a#1',
      '3 failed a',
      '3 retrying a +5',
      '11 started a#2',
      '11 succeeded a',
      '11 requeued a +10',
      '24 started a#1',
      '24 succeeded a',
    ]);
  });

  it('starts a key whose wait gave up with the stale read on its started event, and tells the metrics hook first', () => {
    const heard: string[] = [];
    const events = virtual(({ hot, cold, scheduler }) => {
      const readiness: ReconcileReadiness = { wait: () => timer(5, scheduler).pipe(map(() => stale(5))) };
      const out$ = hot('a').pipe(
        reconcile(() => undefined, {
          readiness,
          metrics: {
            started: (key) => heard.push(`started ${key}`),
            staleRead: (key, staleRead) => heard.push(`stale ${key} ${staleRead.waitedMs}`),
          },
        }),
      );
      void cold;
      return collect(out$);
    });
    expect(events.map(fmt)).to.deep.equal(['started a#1', 'succeeded a']);
    expect(events[0]).to.deep.include({ type: 'started', time: 5, staleRead: stale(5) });
    expect(events[1]).to.not.have.property('staleRead');
    expect(heard).to.deep.equal(['started a', 'stale a 5']);
  });

  it("tells a stale read to both hooks when a host's hook and the options' own are combined, and refuses one that is not a function", () => {
    const heard: string[] = [];
    virtual(({ hot, scheduler }) => {
      const readiness: ReconcileReadiness = { wait: () => timer(5, scheduler).pipe(map(() => stale(5))) };
      const metrics = bothMetrics(
        { staleRead: (key, staleRead) => heard.push(`host ${key} ${staleRead.waitedMs}`) },
        { staleRead: (key, staleRead) => heard.push(`own ${key} ${staleRead.waitedMs}`) },
      );
      return collect(hot('a').pipe(reconcile(() => undefined, { readiness, metrics })));
    });
    expect(heard).to.deep.equal(['host a 5', 'own a 5']);
    expect(() => reconcile(() => undefined, { metrics: { staleRead: 1 } as never })).to.throw(
      TypeError,
      'reconcile: metrics.staleRead must be a function, got number',
    );
  });

  it('coalesces the triggers of a waiting key into the run it waits for, reasons included', () => {
    const events = virtual(({ hot, cold }) => {
      const readiness: ReconcileReadiness = { wait: () => cold<undefined>('10ms (u|)', { u: undefined }) };
      const out$ = hot<ReconcileTrigger>('a 2ms b 2ms c', {
        a: { key: 'x', reason: 'added' },
        b: { key: 'x', reason: 'updated' },
        c: { key: 'x', reason: 'updated' },
      }).pipe(reconcile(() => cold<never>('--|'), { readiness }));
      return collect(out$);
    });
    expect(events.map((event) => `${event.time} ${fmt(event)}`)).to.deep.equal(['10 started x#1', '12 succeeded x']);
    expect(events[0]?.type === 'started' && events[0].reasons).to.deep.equal(['added', 'updated']);
  });

  it('keeps a key whose wait is over until a slot is free, ahead of keys that became ready after it', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const readiness: ReconcileReadiness = {
        wait: (key) => (key === 'a' ? cold<undefined>('1ms (u|)', { u: undefined }) : undefined),
      };
      // a waits from 0 to 1 ms while b takes the only slot; c becomes ready at 4 ms, after a.
      const out$ = hot('(ab)c').pipe(reconcile(() => cold<never>('5ms |'), { readiness, concurrency: 1 }));
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started b#1',
      '5 succeeded b',
      '5 started a#1',
      '10 succeeded a',
      '10 started c#1',
      '15 succeeded c',
    ]);
  });

  it('starts the run when the hook throws or its wait errors, and reports the failure', () => {
    const reported: string[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push((error as Error).message);
    try {
      const lines = virtual(({ hot, cold, scheduler }) => {
        const readiness: ReconcileReadiness = {
          wait: (key) => {
            if (key === 'a') throw new Error('broken');
            return cold<undefined>('3ms #', undefined, new Error('lost'));
          },
          began: () => {
            throw new Error('also broken');
          },
        };
        return timeline(hot('a 1ms b').pipe(reconcile(() => undefined, { readiness })), scheduler);
      });
      expect(lines).to.deep.equal(['0 started a#1', '0 succeeded a', '5 started b#1', '5 succeeded b']);
      expect(reported).to.deep.equal([
        "reconcile: the readiness hook's wait() failed: broken",
        "reconcile: the readiness hook's began() failed: also broken",
        "reconcile: the readiness hook's wait() failed: lost",
        "reconcile: the readiness hook's began() failed: also broken",
      ]);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it('drops a waiting key at stop$ as it drops waiting keys, and completes', () => {
    const lines = virtual(({ hot, scheduler }) => {
      const readiness: ReconcileReadiness = { wait: () => NEVER as Observable<undefined> };
      return timeline(hot('a').pipe(reconcile(() => undefined, { readiness, stop$: hot('--s') })), scheduler);
    });
    expect(lines).to.deep.equal(['2 complete']);
  });

  it('does not complete with its source while a key waits, and completes once it has run', () => {
    const lines = virtual(({ cold, scheduler }) => {
      const readiness: ReconcileReadiness = { wait: () => cold<undefined>('4ms (u|)', { u: undefined }) };
      return timeline(cold('a|').pipe(reconcile(() => undefined, { readiness })), scheduler);
    });
    expect(lines).to.deep.equal(['4 started a#1', '4 succeeded a', '4 complete']);
  });

  it('refuses a readiness that has no wait(key) when it is built', () => {
    expect(() => reconcile(() => undefined, { readiness: {} as never })).to.throw(
      TypeError,
      'readiness must be an object with a wait(key) method',
    );
  });

  it('cancels every wait when unsubscribed', () => {
    let subscribed = 0;
    let unsubscribed = 0;
    const readiness: ReconcileReadiness = {
      wait: () =>
        new Observable<undefined>(() => {
          subscribed += 1;
          return () => (unsubscribed += 1);
        }),
    };
    const triggers = new Subject<string>();
    const subscription = triggers.pipe(reconcile(() => undefined, { readiness })).subscribe();
    triggers.next('a');
    triggers.next('b');
    expect([subscribed, unsubscribed]).to.deep.equal([2, 0]);
    subscription.unsubscribe();
    expect([subscribed, unsubscribed]).to.deep.equal([2, 2]);
  });
});
