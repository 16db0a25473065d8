import { expect } from 'chai';
import { BehaviorSubject, NEVER, Subject, firstValueFrom, filter, take, toArray } from 'rxjs';
import {
  ReconcileAbortedError,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  reconcile,
} from '../../../src/controller/index.js';
import type { ReconcileEvent, ReconcileKeyRequest, ReconcileTrigger } from '../../../src/controller/index.js';
import { record, settleLater, timeline, virtual } from '../helpers.js';
import { waitFor } from '../../support/wait.js';

describe('reconcile: abandoned Promises never overlap their own retry', () => {
  it('reports a timed-out Promise as failed and held at the deadline, released when it settles, and retries only then', () => {
    const lines = virtual(({ hot, scheduler }) => {
      let calls = 0;
      const out$ = hot('a').pipe(
        reconcile(() => (calls++ === 0 ? settleLater(scheduler, 200, { value: undefined }) : undefined), {
          timeout: 50,
          scheduler,
          globalRateLimiter: false,
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '50 failed a',
      '50 retrying a +5',
      '200 released a',
      '200 started a#2',
      '200 succeeded a',
    ]);
  });

  it('marks the failure of a Promise that outlived its timeout as held, and reports how long it held its key on released', () => {
    const events = virtual(({ hot, scheduler }) => {
      const out$ = hot('a').pipe(
        reconcile(() => settleLater(scheduler, 200, { value: undefined }), {
          timeout: 50,
          scheduler,
          globalRateLimiter: false,
          maxRetries: 0,
        }),
      );
      return record(out$, scheduler).events;
    });
    expect(events.map((event) => event.type)).to.deep.equal(['started', 'failed', 'dropped', 'released']);
    const [, failed, , released] = events;
    expect(failed).to.include({ held: true, durationMs: 50, time: 50 });
    expect(released).to.include({ key: 'a', attempt: 1, durationMs: 200, time: 200 });
  });

  it('marks no Observable as held: it is unsubscribed at its timeout, and nothing is released', () => {
    const events = virtual(
      ({ hot, scheduler }) =>
        record(
          hot('a').pipe(
            reconcile(() => NEVER, {
              timeout: 50,
              scheduler,
              globalRateLimiter: false,
              maxRetries: 0,
            }),
          ),
          scheduler,
        ).events,
    );
    expect(events.map((event) => event.type)).to.deep.equal(['started', 'failed', 'dropped']);
    expect(events[1]).to.not.have.property('held');
  });

  it('keeps the concurrency slot of an abandoned Promise until it settles', () => {
    const lines = virtual(({ hot, scheduler }) => {
      const out$ = hot('a 9ms b').pipe(
        reconcile(({ key }) => (key === 'a' ? settleLater(scheduler, 100, { value: undefined }) : undefined), {
          timeout: 20,
          scheduler,
          globalRateLimiter: false,
          maxRetries: 0,
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '20 failed a',
      '20 dropped a',
      '100 released a',
      '100 started b#1',
      '100 succeeded b',
    ]);
  });

  it('coalesces a trigger that arrives while an abandoned Promise holds the key into one run right after it settles', () => {
    const lines = virtual(({ hot, scheduler }) => {
      let calls = 0;
      const out$ = hot('a 79ms a').pipe(
        reconcile(() => (calls++ === 0 ? settleLater(scheduler, 150, { error: new Error('late') }) : undefined), {
          timeout: 30,
          scheduler,
          globalRateLimiter: false,
        }),
      );
      return timeline(out$, scheduler);
    });
    expect(lines).to.deep.equal([
      '0 started a#1',
      '30 failed a',
      '30 retrying a +5',
      '150 released a',
      '150 started a#2',
      '150 succeeded a',
    ]);
  });

  it('never runs a key concurrently with itself when a real async reconcile outlives its timeout', async function () {
    this.timeout(5000);
    const triggers = new Subject<ReconcileTrigger | string>();
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    const done = firstValueFrom(
      triggers.pipe(
        reconcile(
          async () => {
            calls += 1;
            inFlight += 1;
            most = Math.max(most, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 60));
            inFlight -= 1;
          },
          { timeout: 15, globalRateLimiter: false, maxRetries: 2 },
        ),
        filter((e) => e.type === 'dropped'),
      ),
    );
    triggers.next('k');
    await done;
    expect(calls).to.equal(3);
    expect(most, 'executions of one key in flight at once').to.equal(1);
  });
});

describe('reconcile: the request signal', () => {
  /** Runs one key whose reconcile never ends on its own and records its signal's abort reason. */
  function abortReason(
    options: Parameters<typeof reconcile>[1],
    act: (helpers: { stop$: Subject<void>; gate: BehaviorSubject<boolean>; unsubscribe: () => void }) => void,
    kind: 'promise' | 'observable' = 'promise',
  ): unknown {
    let reason: unknown = 'not aborted';
    virtual(({ hot, scheduler }) => {
      const stop$ = new Subject<void>();
      const gate = new BehaviorSubject(true);
      const out$ = hot('a').pipe(
        reconcile(
          (request: ReconcileKeyRequest) => {
            request.signal.addEventListener('abort', () => (reason = request.signal.reason));
            return kind === 'promise' ? settleLater(scheduler, 10_000, { value: undefined }) : NEVER;
          },
          { scheduler, stop$, gate, ...options },
        ),
      );
      const subscription = out$.subscribe();
      scheduler.schedule(() => act({ stop$, gate, unsubscribe: () => subscription.unsubscribe() }), 10);
      scheduler.schedule(() => subscription.unsubscribe(), 20_000);
    });
    return reason;
  }

  it('is aborted with a ReconcileTimeoutError at the timeout, for Promises and Observables alike', () => {
    for (const kind of ['promise', 'observable'] as const) {
      expect(
        abortReason({ timeout: 50 }, () => undefined, kind),
        kind,
      ).to.be.instanceOf(ReconcileTimeoutError);
    }
  });

  it('is aborted with a ReconcileCancelledError when the drain after stop$ runs out of time', () => {
    expect(abortReason({ drainTimeout: 100 }, ({ stop$ }) => stop$.next())).to.be.instanceOf(ReconcileCancelledError);
  });

  it('is aborted with a ReconcileAbortedError on unsubscribe', () => {
    const reason = abortReason({}, ({ unsubscribe }) => unsubscribe());
    expect(reason).to.be.instanceOf(ReconcileAbortedError);
    expect((reason as ReconcileAbortedError).why).to.equal('unsubscribed');
  });

  it('is aborted with a ReconcileAbortedError when the gate closes, and the run still ends as it chooses', () => {
    const reason = abortReason({}, ({ gate }) => gate.next(false));
    expect((reason as ReconcileAbortedError).why).to.equal('gate closed');
    const lines = virtual(({ hot, scheduler }) => {
      const gate = new BehaviorSubject(true);
      // A Promise-like that settles (rejects) only when its signal is aborted, as a well-behaved reconcile does.
      const out$ = hot('a').pipe(
        reconcile(
          ({ signal }) => ({
            // biome-ignore lint/suspicious/noThenProperty: the spec needs a Promise-like that is not a Promise
            then: (_ok: unknown, fail: (e: unknown) => void) =>
              signal.addEventListener('abort', () => fail(signal.reason)),
          }),
          { scheduler, gate, globalRateLimiter: false },
        ),
      );
      scheduler.schedule(() => gate.next(false), 7);
      return timeline(out$, scheduler);
    });
    // Not the reconcile's failure: no retry; the key waits, ready, for the gate to open again.
    expect(lines).to.deep.equal(['0 started a#1', '7 failed a']);
  });

  it('is created on first read, already aborted when first read after the deadline', () => {
    let late: AbortSignal | undefined;
    let request: ReconcileKeyRequest | undefined;
    virtual(({ hot, scheduler }) => {
      const out$ = hot('a').pipe(
        reconcile(
          (r) => {
            request = r;
            return settleLater(scheduler, 100, { value: undefined });
          },
          { scheduler, timeout: 10, maxRetries: 0 },
        ),
      );
      out$.subscribe();
      scheduler.schedule(() => (late = request!.signal), 50);
    });
    expect(late?.aborted).to.equal(true);
    expect(late?.reason).to.be.instanceOf(ReconcileTimeoutError);
  });

  it('shows how fetch takes the signal: a timed-out HTTP call is cancelled, not left running', async function () {
    this.timeout(5000);
    const { createServer } = await import('node:http');
    let cancelled = false;
    const server = createServer((req) => req.socket.once('close', () => (cancelled = true))); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const triggers = new Subject<string>();
      const events = firstValueFrom(
        triggers.pipe(
          reconcile(({ signal }) => fetch(`http://127.0.0.1:${port}/`, { signal }), { timeout: 50, maxRetries: 0 }),
          take(3),
          toArray(),
        ),
      );
      triggers.next('k');
      const [, failed, dropped] = await events;
      expect(failed).to.deep.include({ type: 'failed' });
      expect((failed as { error: unknown }).error).to.be.instanceOf(ReconcileTimeoutError);
      expect(dropped!.type).to.equal('dropped');
      await waitFor(() => cancelled, 'the server to see the request cancelled');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('reconcile: deleted is never confused with no lookup', () => {
  it('throws a clear TypeError when a reconcile without lookup reads object, failing the run instead of passing for deleted', () => {
    const events = virtual(
      ({ hot, scheduler }) =>
        record(
          hot('a').pipe(
            reconcile((request) => (request as unknown as { object: unknown }).object, {
              scheduler,
              maxRetries: 0,
            }),
          ),
          scheduler,
        ).events,
    );
    const failed = events.find((e) => e.type === 'failed') as Extract<ReconcileEvent, { type: 'failed' }>;
    expect(failed.error).to.be.instanceOf(TypeError);
    expect((failed.error as Error).message).to.match(/no lookup was configured.*does not mean the object was deleted/);
  });

  it('hands the looked-up object, and undefined only for a key the lookup does not find', () => {
    const seen: unknown[] = [];
    virtual(({ hot, scheduler }) => {
      const store = new Map([['present', { metadata: { name: 'present' } }]]);
      hot('ab', { a: 'present', b: 'gone' })
        .pipe(
          reconcile(({ object }) => void seen.push(object), {
            scheduler,
            lookup: (key) => store.get(key),
          }),
        )
        .subscribe();
    });
    expect(seen).to.deep.equal([{ metadata: { name: 'present' } }, undefined]);
  });
});

describe('reconcile: retrying and dropped carry the error', () => {
  it("puts the failed run's error on retrying and dropped", () => {
    const events = virtual(
      ({ hot, cold, scheduler }) =>
        record(
          hot('a').pipe(
            reconcile(({ attempt }) => cold<never>('#', undefined, new Error(`boom ${attempt}`)), {
              scheduler,
              maxRetries: 1,
            }),
          ),
          scheduler,
        ).events,
    );
    const errors = events.flatMap((e) =>
      e.type === 'retrying' || e.type === 'dropped' ? [[e.type, (e.error as Error).message]] : [],
    );
    expect(errors).to.deep.equal([
      ['retrying', 'boom 1'],
      ['dropped', 'boom 2'],
    ]);
  });
});
