/**
 * What the page shows of a queue, read from the reconcile operator's metrics hook: the reconcile operator itself, in
 * virtual time, reporting to a `ReconcileWatch`; and `observeController` plugging one into a definition.
 */
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { concat, EMPTY, from, map, NEVER, of, Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, startController, type ControllerDefinition, type ReconcileEvent } from '../../src/index.js';
import { observeController, ReconcileWatch, type QueueState } from './reconcile-watch.js';

describe('ReconcileWatch: the queue and the runs, from the metrics hook', () => {
  const scheduler = () =>
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });

  it('lists the keys waiting, running and delayed at each moment, and the finished runs with their reasons, errors and what followed', () => {
    const test = scheduler();
    test.run(({ hot, flush }) => {
      const watch = new ReconcileWatch('things', () => test.now(), 10);
      const seen: Record<number, QueueState> = {};
      const failures = new Map<string, number>();
      // One worker; each run takes 10 ms; `flaky` fails twice.
      hot('abc', {
        a: { key: 'ns/one', reason: 'first' },
        b: { key: 'ns/two', reason: 'second' },
        c: { key: 'ns/flaky', reason: 'third' },
      })
        .pipe(
          reconcile(
            ({ key }) =>
              timer(10).pipe(
                map(() => {
                  const failed = failures.get(key) ?? 0;
                  if (key === 'ns/flaky' && failed < 2) {
                    failures.set(key, failed + 1);
                    throw new Error(`flaky failure ${failed + 1}`);
                  }
                }),
              ),
            { metrics: watch, scheduler: test, globalRateLimiter: false },
          ),
        )
        .subscribe();
      for (const at of [5, 25, 31, 36])
        test.schedule(() => {
          seen[at] = watch.state(10);
        }, at);
      flush();

      // At 5 ms: one runs, two wait (oldest first), with when they came.
      expect(seen[5]!.running.keys).to.deep.equal([{ key: 'ns/one', since: 0 }]);
      expect(seen[5]!.waiting).to.deep.equal({
        total: 2,
        keys: [
          { key: 'ns/two', since: 1 },
          { key: 'ns/flaky', since: 2 },
        ],
      });
      expect(seen[5]).to.deep.include({ depth: 2, activeWorkers: 1, concurrency: 1, open: true, priorities: null });
      // At 25 ms flaky runs; at 31 it failed once and waits 5 ms for its retry (not in the depth); at 36 it runs again.
      expect(seen[25]!.running.keys.map((key) => key.key)).to.deep.equal(['ns/flaky']);
      expect(seen[31]!.delayed.keys).to.deep.equal([{ key: 'ns/flaky', at: 35, why: 'retry' }]);
      expect(seen[31]!.depth).to.equal(0);
      expect(seen[36]!.delayed.total).to.equal(0);
      expect(seen[36]!.running.keys.map((key) => key.key)).to.deep.equal(['ns/flaky']);

      const runs = watch.recent().map(({ key, outcome, reasons, attempt, error, followedBy }) => ({
        key,
        outcome,
        reasons,
        attempt,
        error,
        followedBy,
      }));
      expect(runs).to.deep.equal([
        {
          key: 'ns/flaky',
          outcome: 'succeeded',
          reasons: ['retry'],
          attempt: 3,
          error: undefined,
          followedBy: undefined,
        },
        {
          key: 'ns/flaky',
          outcome: 'failed',
          reasons: ['retry'],
          attempt: 2,
          error: 'flaky failure 2',
          followedBy: 'retry in 10 ms (failure 2)',
        },
        {
          key: 'ns/flaky',
          outcome: 'failed',
          reasons: ['third'],
          attempt: 1,
          error: 'flaky failure 1',
          followedBy: 'retry in 5 ms (failure 1)',
        },
        {
          key: 'ns/two',
          outcome: 'succeeded',
          reasons: ['second'],
          attempt: 1,
          error: undefined,
          followedBy: undefined,
        },
        {
          key: 'ns/one',
          outcome: 'succeeded',
          reasons: ['first'],
          attempt: 1,
          error: undefined,
          followedBy: undefined,
        },
      ]);
      expect(watch.recent()[0]).to.deep.include({ durationMs: 10, at: 65 });
    });
  });

  it('keeps only the newest runs, cuts every list to the limit it is read with, and forgets the waiting keys a stop dropped', () => {
    const test = scheduler();
    test.run(({ flush }) => {
      const watch = new ReconcileWatch('things', () => test.now(), 3);
      const stop = new Subject<void>();
      // Eight keys at once; one worker, 10 ms a run; the stop comes at 25 ms, with five keys still waiting.
      concat(from(Array.from({ length: 8 }, (_, i) => `ns/k${i}`)), NEVER)
        .pipe(reconcile(() => timer(10), { metrics: watch, scheduler: test, stop$: stop, globalRateLimiter: false }))
        .subscribe();
      let state: QueueState | undefined;
      test.schedule(() => {
        state = watch.state(2);
      }, 5);
      test.schedule(() => stop.next(), 25);
      let afterStop: QueueState | undefined;
      test.schedule(() => {
        afterStop = watch.state(2);
      }, 26);
      flush();
      expect(state!.waiting.total).to.equal(7);
      expect(state!.waiting.keys.map((key) => key.key)).to.deep.equal(['ns/k1', 'ns/k2']);
      expect(watch.recent().map((run) => run.key)).to.deep.equal(['ns/k2', 'ns/k1', 'ns/k0']);
      expect(afterStop!.waiting).to.deep.equal({ total: 0, keys: [] });
    });
  });

  it("observeController adds the watch to every operator of a definition, beside the host's own hook and the controller's", () => {
    const own: string[] = [];
    const definition: ControllerDefinition = {
      name: 'things',
      start: (context) =>
        of('ns/a', 'ns/b').pipe(context.reconcile(() => EMPTY, { metrics: { added: (key) => own.push(key) } })),
    };
    const test = scheduler();
    test.run(({ flush }) => {
      const watch = new ReconcileWatch('things', () => test.now(), 10);
      let ended = 0;
      const events: ReconcileEvent[] = [];
      const observed = observeController(definition, watch, () => {
        ended += 1;
      });
      expect(observed.name).to.equal('things');
      const connection = new KubeConfig();
      connection.loadFromOptions({
        clusters: [{ name: 'c', server: 'http://127.0.0.1:1' }],
        users: [{ name: 'u' }],
        contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
        currentContext: 'c',
      });
      startController(observed, { connection, scheduler: test, events: false }).subscribe((event) =>
        events.push(event),
      );
      flush();
      expect(own).to.deep.equal(['ns/a', 'ns/b']);
      expect(watch.recent().map((run) => run.key)).to.deep.equal(['ns/b', 'ns/a']);
      expect(events.filter((event) => event.type === 'succeeded')).to.have.length(2);
      expect(ended).to.equal(1);
    });
  });
});
