/**
 * The reconcile operator's metrics hook (`metrics`): what the queue says of itself, client-go's `MetricsProvider`.
 */
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { asyncScheduler, config, map, merge, NEVER, Observable, of, Subject, take, timer } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { controllerContext } from '../../../src/controller/context/index.js';
import { reconcile, TerminalError } from '../../../src/controller/index.js';
import type { ReconcileKeyRequest, ReconcileMetrics, ReconcileQueueView } from '../../../src/controller/index.js';
import { settleLater, virtual } from '../helpers.js';

/** A hook that writes one `"<time> <tag><call>"` line per call to `lines`, and keeps the views it was given. */
function recording(
  scheduler: SchedulerLike,
  lines: string[] = [],
  tag = '',
): { hook: ReconcileMetrics; lines: string[]; queues: ReconcileQueueView[] } {
  const queues: ReconcileQueueView[] = [];
  const line = (text: string): void => void lines.push(`${scheduler.now()} ${tag}${text}`);
  const hook: ReconcileMetrics = {
    opened: (queue) => {
      queues.push(queue);
      line('opened');
    },
    closed: (queue) => line(`closed ${queues.indexOf(queue)}`),
    added: (key) => line(`added ${key}`),
    started: (key, queueWaitMs) => line(`started ${key} after ${queueWaitMs}`),
    done: (key, durationMs) => line(`done ${key} after ${durationMs}`),
    outcome: (run, next) =>
      line(
        `outcome ${run.key}#${run.attempt} ${run.type}${run.type === 'failed' && run.gateClosed ? ' gateClosed' : ''}${next ? ` ${next.type}` : ''}`,
      ),
  };
  return { hook, lines, queues };
}

/** `read()` once per frame from frame 0, `frames` times: what a scraper would see at the end of each frame. */
function sampled<V>(frames: number, read: () => V): Observable<V> {
  return timer(0, 1).pipe(take(frames), map(read));
}

/** Gives the run's `signal` an Observable that errors with its abort reason (a reconcile that honours its signal). */
function untilAborted({ signal }: ReconcileKeyRequest): Observable<never> {
  return new Observable((subscriber) => signal.addEventListener('abort', () => subscriber.error(signal.reason)));
}

describe('reconcile: the metrics hook (marbles)', () => {
  it("reports client-go's depth, adds and queue waits: a key triggered while it runs is one more add, a coalesced trigger none", () => {
    virtual(({ hot, cold, expectObservable, scheduler }) => {
      const { hook, lines, queues } = recording(scheduler);
      merge(hot('(ab)'), hot('-aa'))
        .pipe(reconcile(() => cold('---|'), { metrics: hook }))
        .subscribe();
      // b waits behind a; a is triggered again while it runs (2), then once more, which coalesces; a's second run
      // becomes ready when its first ends (still 1 waiting) and starts once b is done.
      expectObservable(sampled(10, () => queues[0]!.depth)).toBe('122111000(0|)', { 0: 0, 1: 1, 2: 2 });
      scheduler.flush();
      expect(lines).to.deep.equal([
        '0 opened',
        '0 added a',
        '0 started a after 0',
        '0 added b',
        '1 added a',
        '3 done a after 3',
        '3 outcome a#1 succeeded',
        '3 started b after 3',
        '6 done b after 3',
        '6 outcome b#1 succeeded',
        '6 started a after 5',
        '9 done a after 3',
        '9 outcome a#1 succeeded',
      ]);
    });
  });

  it("adds a retry or a requeue when its delay runs out, not when it is scheduled, and reports each run's outcome once", () => {
    virtual(({ hot, expectObservable, scheduler }) => {
      const { hook, lines, queues } = recording(scheduler);
      const results = [
        () => {
          throw new Error('once');
        },
        () => ({ requeueAfter: 10 }),
        () => undefined,
      ];
      let call = 0;
      hot('a')
        .pipe(reconcile(() => (results[call++] ?? (() => undefined))(), { metrics: hook, globalRateLimiter: false }))
        .subscribe();
      // A key waiting for its delay is not in the depth (client-go's delaying queue): it enters it when it is due.
      expectObservable(sampled(16, () => queues[0]!.depth)).toBe('000000000000000(0|)', { 0: 0 });
      scheduler.flush();
      expect(lines).to.deep.equal([
        '0 opened',
        '0 added a',
        '0 started a after 0',
        '0 done a after 0',
        '0 outcome a#1 failed retrying',
        '5 added a',
        '5 started a after 0',
        '5 done a after 0',
        '5 outcome a#2 succeeded requeued',
        '15 added a',
        '15 started a after 0',
        '15 done a after 0',
        '15 outcome a#1 succeeded',
      ]);
    });
  });

  it('keeps a Promise held past its timeout in the workers and the unfinished work until it settles, and reports its work done then', () => {
    virtual(({ hot, scheduler }) => {
      const { hook, lines, queues } = recording(scheduler);
      const results = [
        () => settleLater(scheduler, 4000, { value: undefined }), // a: ignores its signal, settles long after its timeout
        () => timer(800), // b
        () => undefined, // a's retry
      ];
      let call = 0;
      hot('a 499ms b')
        .pipe(
          reconcile(() => (results[call++] ?? (() => undefined))(), {
            metrics: hook,
            concurrency: 2,
            timeout: 1000,
            globalRateLimiter: false,
          }),
        )
        .subscribe();
      const samples: string[] = [];
      for (const at of [999, 1001, 2600, 4001]) {
        scheduler.schedule(() => {
          const { activeWorkers, unfinishedWorkMs, longestRunningMs, depth } = queues[0]!;
          samples.push(
            `${at}: workers ${activeWorkers}, unfinished ${unfinishedWorkMs}, longest ${longestRunningMs}, depth ${depth}`,
          );
        }, at);
      }
      scheduler.flush();
      expect(samples).to.deep.equal([
        '999: workers 2, unfinished 1498, longest 999, depth 0',
        '1001: workers 2, unfinished 1502, longest 1001, depth 0', // a failed at 1000 but holds its worker
        '2600: workers 1, unfinished 2600, longest 2600, depth 0',
        '4001: workers 0, unfinished 0, longest 0, depth 0',
      ]);
      expect(lines).to.deep.equal([
        '0 opened',
        '0 added a',
        '0 started a after 0',
        '500 added b',
        '500 started b after 0',
        '1000 outcome a#1 failed retrying',
        '1300 done b after 800',
        '1300 outcome b#1 succeeded',
        '4000 done a after 4000',
        '4000 added a',
        '4000 started a after 0',
        '4000 done a after 0',
        '4000 outcome a#2 succeeded',
      ]);
    });
  });

  it('counts no failure for a run the gate closure aborted: its key is added again at once and waits in the depth for the gate', () => {
    virtual(({ hot, expectObservable, scheduler }) => {
      const { hook, lines, queues } = recording(scheduler);
      let call = 0;
      const gate = hot('t 4ms f 4ms t', { t: true, f: false });
      hot('a')
        .pipe(reconcile((request) => (call++ === 0 ? untilAborted(request) : undefined), { metrics: hook, gate }))
        .subscribe();
      expectObservable(sampled(12, () => queues[0]!.depth)).toBe('00000111110(0|)', { 0: 0, 1: 1 });
      scheduler.flush();
      expect(lines).to.deep.equal([
        '0 opened',
        '0 added a',
        '0 started a after 0',
        '5 done a after 5',
        '5 added a',
        '5 outcome a#1 failed gateClosed',
        '10 started a after 5',
        '10 done a after 0',
        '10 outcome a#1 succeeded',
      ]);
    });
  });

  it('drops the waiting keys from the depth on stop$, reports the drained run, and says closed once, last', () => {
    virtual(({ hot, cold, expectObservable, scheduler }) => {
      const { hook, lines, queues } = recording(scheduler);
      const subscription = hot('(ab)')
        .pipe(reconcile(() => cold('-----|'), { metrics: hook, stop$: timer(3) }))
        .subscribe();
      expectObservable(sampled(7, () => queues[0]!.depth)).toBe('111000(0|)', { 0: 0, 1: 1 });
      scheduler.flush();
      subscription.unsubscribe(); // already complete: nothing more to say
      expect(lines).to.deep.equal([
        '0 opened',
        '0 added a',
        '0 started a after 0',
        '0 added b',
        '5 done a after 5',
        '5 outcome a#1 succeeded',
        '5 closed 0',
      ]);
    });
  });

  it('gives every subscription a view of its own, and says nothing of it after it is unsubscribed', () => {
    virtual(({ hot, cold, scheduler }) => {
      const { hook, lines, queues } = recording(scheduler);
      const triggers = hot('a 2ms a');
      const operator = reconcile(() => cold('---|'), { metrics: hook, concurrency: 3 });
      const first = triggers.pipe(operator).subscribe();
      triggers.pipe(operator).subscribe();
      scheduler.schedule(() => first.unsubscribe(), 1);
      scheduler.flush();
      expect(queues.map((queue) => queue.concurrency)).to.deep.equal([3, 3]);
      expect(queues[0]).to.not.equal(queues[1]);
      expect(lines).to.deep.equal([
        '0 opened',
        '0 opened',
        '0 added a',
        '0 started a after 0', // first
        '0 added a',
        '0 started a after 0', // second
        '1 closed 0',
        '3 added a', // the second's a, triggered again while it ran
        '3 done a after 3',
        '3 outcome a#1 succeeded',
        '3 started a after 0',
        '6 done a after 3',
        '6 outcome a#1 succeeded',
      ]);
    });
  });

  it('reports each outcome with what followed it: requeued, retrying, dropped, or nothing for a terminal failure', () => {
    const lines = virtual(({ hot, scheduler }) => {
      const { hook, lines: all } = recording(scheduler);
      const runs = new Map<string, number>();
      const results: Record<string, (run: number) => unknown> = {
        ok: () => undefined,
        requeue: (run) => (run === 1 ? { requeueAfter: 5 } : undefined),
        flaky: () => {
          throw new Error('flaky');
        },
        broken: () => {
          throw new TerminalError('broken');
        },
      };
      hot('(abcd)', { a: 'ok', b: 'requeue', c: 'flaky', d: 'broken' })
        .pipe(
          reconcile(
            ({ key }) => {
              const run = (runs.get(key) ?? 0) + 1;
              runs.set(key, run);
              return results[key]!(run);
            },
            { metrics: hook, maxRetries: 1, globalRateLimiter: false },
          ),
        )
        .subscribe();
      scheduler.flush();
      return all.filter((line) => line.includes('outcome'));
    });
    expect(lines).to.deep.equal([
      '0 outcome ok#1 succeeded',
      '0 outcome requeue#1 succeeded requeued',
      '0 outcome flaky#1 failed retrying',
      '0 outcome broken#1 failed',
      '5 outcome requeue#1 succeeded',
      '5 outcome flaky#2 failed dropped',
    ]);
  });
});

describe('reconcile: the metrics hook (input and hosts)', () => {
  it('refuses a hook that is not an object of functions, naming what is wrong', () => {
    expect(() => reconcile(() => undefined, { metrics: 'prometheus' as never })).to.throw(
      TypeError,
      /^reconcile: metrics must be an object of hook methods .*got string$/,
    );
    expect(() => reconcile(() => undefined, { metrics: { added: 1 } as never })).to.throw(
      TypeError,
      'reconcile: metrics.added must be a function, got number',
    );
    expect(() => reconcile(() => undefined, { metrics: {} })).to.not.throw();
  });

  it('reports what a hook throws and goes on reconciling', () => {
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => void reported.push(error);
    try {
      const succeeded: string[] = [];
      const broken: ReconcileMetrics = {
        added: () => {
          throw new Error('no registry');
        },
        outcome: () => {
          throw new Error('no logger');
        },
      };
      of('a', 'b')
        .pipe(reconcile(() => undefined, { metrics: broken, scheduler: asyncScheduler }))
        .subscribe((event) => {
          if (event.type === 'succeeded') succeeded.push(event.key);
        });
      expect(succeeded).to.deep.equal(['a', 'b']);
      expect(reported.map((error) => (error as Error).message)).to.deep.equal([
        "reconcile: the metrics hook's added() threw: no registry",
        "reconcile: the metrics hook's outcome() threw: no logger",
        "reconcile: the metrics hook's added() threw: no registry",
        "reconcile: the metrics hook's outcome() threw: no logger",
      ]);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it("under a context, tells the host's hook and the options' own everything, the host first", () => {
    virtual(({ hot, scheduler }) => {
      const lines: string[] = [];
      const host = recording(scheduler, lines, 'host ');
      const own = recording(scheduler, lines, 'own ');
      const context = controllerContext({
        name: 'c',
        connection: new KubeConfig(),
        informers: undefined as never,
        scheduler,
        random: Math.random,
        reportError: () => undefined,
        gate: of(true),
        leader$: of(true),
        stop$: NEVER,
        drainTimeout: 30_000,
        recorder: undefined,
        onWarning: () => undefined,
        metrics: host.hook,
      });
      hot('-a')
        .pipe(context.reconcile(() => undefined, { metrics: own.hook }))
        .subscribe();
      const subject = new Subject<string>();
      subject.pipe(context.reconcile(() => undefined, {})).subscribe();
      subject.next('b');
      scheduler.flush();
      expect(lines).to.deep.equal([
        '0 host opened',
        '0 own opened',
        '0 host opened',
        '0 host added b',
        '0 host started b after 0',
        '0 host done b after 0',
        '0 host outcome b#1 succeeded',
        '1 host added a',
        '1 own added a',
        '1 host started a after 0',
        '1 own started a after 0',
        '1 host done a after 0',
        '1 own done a after 0',
        '1 host outcome a#1 succeeded',
        '1 own outcome a#1 succeeded',
      ]);
      expect(host.queues).to.have.length(2);
      expect(own.queues).to.deep.equal([host.queues[0]]);
      expect(() => context.reconcile(() => undefined, { metrics: 7 as never })).to.throw(
        TypeError,
        /^reconcile: metrics must be an object/,
      );
    });
  });
});
