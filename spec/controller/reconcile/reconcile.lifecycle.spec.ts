import { expect } from 'chai';
import { BehaviorSubject, Observable, Subject } from 'rxjs';
import {
  ReconcileAbortedError,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  reconcile,
  tokenBucketRateLimiter,
} from '../../../src/controller/index.js';
import type {
  RateLimiter,
  ReconcileEvent,
  ReconcileRequest,
  ReconcileResult,
  ReconcileTrigger,
} from '../../../src/controller/index.js';
import { collect, record, timeline, virtual } from '../helpers.js';

/** A per-key limiter that always answers `ms`. */
function fixedDelay(ms: number): RateLimiter {
  return { when: () => ms, forget: () => undefined };
}

describe('reconcile: gate, latest state, shutdown, timeouts and cancellation (marbles)', () => {
  it('holds and deduplicates triggers until the gate opens', () => {
    const events = virtual(({ hot, cold }) => {
      const gate = hot('----t', { t: true });
      return collect(hot('aba').pipe(reconcile(() => cold<never>('--|'), { gate })));
    });
    expect(
      events.map((event) => `${event.time} ${event.type} ${event.type === 'rejected' ? '' : event.key}`),
    ).to.deep.equal(['4 started a', '6 succeeded a', '6 started b', '8 succeeded b']);
    const first = events[0]!;
    expect(first.type === 'started' && first.queueWaitMs).to.equal(4);
  });

  it('pauses new starts while the gate is closed again, letting the running key finish', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const gate = hot('t-f---t', { t: true, f: false });
      return timeline(hot('a--b').pipe(reconcile(() => cold<never>('---|'), { gate })), scheduler);
    });
    expect(lines).to.deep.equal(['0 started a#1', '3 succeeded a', '6 started b#1', '9 succeeded b']);
  });

  it('counts no failure for a run aborted because the gate closed: the key runs again, same attempt and reasons, when it reopens', () => {
    const events = virtual(({ hot, cold }) => {
      const gate = hot('t------f-----------t', { t: true, f: false });
      let call = 0;
      // The first run honours its signal: it ends, rejecting with the abort reason, when the gate closes.
      const fn = ({ signal }: { signal: AbortSignal }): Observable<ReconcileResult> | undefined =>
        call++ === 0
          ? new Observable<never>((subscriber) =>
              signal.addEventListener('abort', () => subscriber.error(signal.reason)),
            )
          : cold<never>('--|');
      // maxRetries: 0 would drop the key at its first counted failure.
      return collect(
        hot<ReconcileTrigger>('a', { a: { key: 'a', reason: 'added' } }).pipe(reconcile(fn, { gate, maxRetries: 0 })),
      );
    });
    expect(
      events.map(
        (event) =>
          `${event.time} ${event.type}${event.type === 'rejected' ? '' : ` #${event.attempt} ${event.reasons.join(',')}`}`,
      ),
    ).to.deep.equal(['0 started #1 added', '7 failed #1 added', '19 started #1 added', '21 succeeded #1 added']);
    const failed = events[1]!;
    expect(failed.type === 'failed' && failed.error).to.be.instanceOf(ReconcileAbortedError);
    expect(failed.type === 'failed' && failed.gateClosed).to.equal(true);
  });

  it('takes no backoff and no token for a run the gate closure aborted, whatever it failed with', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const gate = hot('t-f-t', { t: true, f: false });
      let call = 0;
      // This run ignores its signal and fails on its own after the gate closed: still not the reconcile's failure.
      const fn = (): Observable<never> => cold<never>(call++ === 0 ? '---#' : '|');
      return timeline(
        hot('a').pipe(
          reconcile(fn, {
            gate,
            globalRateLimiter: tokenBucketRateLimiter({ qps: 1, burst: 1 }),
            rateLimiter: fixedDelay(1_000),
          }),
        ),
        scheduler,
      );
    });
    expect(lines).to.deep.equal(['0 started a#1', '3 failed a', '4 started a#1', '4 succeeded a']);
  });

  it('passes the object the lookup returns when the run starts, not when the key was triggered', () => {
    const seen = virtual(({ hot, scheduler }) => {
      const store = new Map<string, string>([
        ['a', 'v1'],
        ['b', 'v1'],
      ]);
      scheduler.schedule(() => {
        store.set('a', 'v2');
        store.delete('b');
      }, 3);
      const requests: ReconcileRequest<string>[] = [];
      const gate = hot('-----t', { t: true });
      hot('ab')
        .pipe(reconcile<string>((request) => void requests.push(request), { gate, lookup: (key) => store.get(key) }))
        .subscribe();
      return requests;
    });
    expect(seen.map(({ key, object }) => [key, object])).to.deep.equal([
      ['a', 'v2'],
      ['b', undefined],
    ]);
  });

  it('on stop$ drops waiting keys, drains in-flight runs up to drainTimeout, cancels the rest and completes', () => {
    const result = virtual(({ hot, cold, scheduler, expectSubscriptions }) => {
      const slow = cold<never>('100ms |');
      const fns: Record<string, () => typeof slow> = {
        a: () => cold<never>('10ms |'),
        b: () => slow,
        c: () => cold<never>('|'),
      };
      const out$ = hot('(abc) 5ms a').pipe(
        reconcile(({ key }) => fns[key]!(), { concurrency: 2, drainTimeout: 20, stop$: hot('-----s') }),
      );
      expectSubscriptions(slow.subscriptions).toBe('^ 24ms !');
      return record(out$, scheduler);
    });
    expect(result.lines).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '10 succeeded a',
      '25 failed b',
      '25 complete',
    ]);
    const failed = result.events.find((event) => event.type === 'failed');
    expect(failed?.type === 'failed' && failed.error).to.be.instanceOf(ReconcileCancelledError);
  });

  it('completes at once on stop$ when nothing is running', () => {
    const lines = virtual(({ hot, cold, scheduler }) =>
      timeline(hot('a').pipe(reconcile(() => cold<never>('|'), { stop$: hot('---s') })), scheduler),
    );
    expect(lines).to.deep.equal(['0 started a#1', '0 succeeded a', '3 complete']);
  });

  it('completes at once, holding no subscription, when stop$ has fired before the first trigger', () => {
    const stop$ = new BehaviorSubject<void>(undefined);
    const triggers = new Subject<string>();
    let completed = false;
    triggers.pipe(reconcile(() => undefined, { stop$ })).subscribe({ complete: () => (completed = true) });
    expect(completed).to.equal(true);
    expect(stop$.observed).to.equal(false);
    expect(triggers.observed).to.equal(false);
  });

  it('reports only succeeded or failed for runs that end while draining, scheduling no requeue or retry', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const fn = ({ key }: { key: string }): Observable<ReconcileResult> =>
        key === 'a' ? cold<ReconcileResult>('5ms (r|)', { r: { requeueAfter: 1 } }) : cold<never>('3ms #');
      return timeline(hot('(ab)').pipe(reconcile(fn, { concurrency: 2, stop$: hot('-s') })), scheduler);
    });
    expect(lines).to.deep.equal(['0 started a#1', '0 started b#1', '3 failed b', '5 succeeded a', '5 complete']);
  });

  it('completes after the source completes once nothing runs or waits', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      let call = 0;
      return timeline(hot('a|').pipe(reconcile(() => cold<never>(call++ === 0 ? '#' : '--|'))), scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '0 failed a',
      '0 retrying a +5',
      '5 started a#2',
      '7 succeeded a',
      '7 complete',
    ]);
  });

  it('fails a run that exceeds timeout, cancels it and retries it', () => {
    const result = virtual(({ hot, cold, scheduler, expectSubscriptions }) => {
      const slow = cold<never>('20ms |');
      const out$ = hot('a').pipe(
        reconcile(({ attempt }) => (attempt === 1 ? slow : cold<never>('|')), { timeout: 10 }),
      );
      expectSubscriptions(slow.subscriptions).toBe('^ 9ms !');
      return record(out$, scheduler);
    });
    expect(result.lines).to.deep.equal([
      '0 started a#1',
      '10 failed a',
      '10 retrying a +5',
      '15 started a#2',
      '15 succeeded a',
    ]);
    const failed = result.events.find((event) => event.type === 'failed');
    expect(failed?.type === 'failed' && failed.error).to.be.instanceOf(ReconcileTimeoutError);
  });

  it('cancels in-flight runs and pending retries at once on unsubscribe', () => {
    const lines = virtual(({ hot, cold, scheduler, expectSubscriptions }) => {
      const long = cold<never>('10ms |');
      const out$ = hot('(ab)').pipe(
        reconcile(({ key }) => (key === 'a' ? long : cold<never>('#')), { concurrency: 2 }),
      );
      const seen: string[] = [];
      const subscription = out$.subscribe((event: ReconcileEvent) => seen.push(`${event.time} ${event.type}`));
      scheduler.schedule(() => subscription.unsubscribe(), 3);
      expectSubscriptions(long.subscriptions).toBe('^--!');
      return seen;
    });
    // b's retry was due at 5 and a's completion at 10: neither happens.
    expect(lines).to.deep.equal(['0 started', '0 started', '0 failed', '0 retrying']);
  });

  it('abandons a pending Promise on unsubscribe and reports nothing when it settles', async () => {
    let resolve: () => void = () => {};
    const events: ReconcileEvent[] = [];
    const triggers = new Subject<string>();
    const subscription = triggers
      .pipe(reconcile(() => new Promise<void>((done) => (resolve = done))))
      .subscribe((event) => events.push(event));
    triggers.next('a');
    subscription.unsubscribe();
    resolve();
    await new Promise((done) => setImmediate(done));
    expect(events.map((event) => event.type)).to.deep.equal(['started']);
  });
});
