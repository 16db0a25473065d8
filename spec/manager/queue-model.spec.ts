import { expect } from 'chai';
import fc from 'fast-check';
import { Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, type ReconcileEvent } from '../../src/controller/index.js';
import { QueueModel } from '../../src/manager/metrics/index.js';
import { OutcomeFolder, type RunOutcome } from '../../src/manager/outcomes.js';
import { virtual } from '../controller/helpers.js';

/** A model fed like the manager feeds it, recording `"<time> depth <n>"` and counting adds. */
function observed(scheduler: TestScheduler): { model: QueueModel; depths: string[]; adds: () => number } {
  const depths: string[] = [];
  let adds = 0;
  const model = new QueueModel(scheduler, () => void adds++, (depth) => depths.push(`${scheduler.now()} depth ${depth}`));
  return { model, depths, adds: () => adds };
}

function feed(model: QueueModel, event: ReconcileEvent): void {
  if (event.type === 'started') model.started(event.key);
  else if (event.type === 'succeeded' || event.type === 'failed') model.ended(event.key);
  else if (event.type === 'retrying' || event.type === 'requeued') model.delayed(event.key, event.delayMs);
}

describe('QueueModel (workqueue_depth and workqueue_adds_total)', () => {
  it('counts a waiting key once, a key triggered while running once more, and a retry when its delay runs out', () => {
    virtual(({ scheduler, flush }) => {
      const { model, depths, adds } = observed(scheduler);
      model.trigger('a');
      model.trigger('a'); // coalesced
      model.started('a');
      model.trigger('a'); // dirty while running
      model.trigger('a'); // coalesced
      model.ended('a'); // dirty: waiting again, still counted
      model.started('a');
      model.ended('a');
      model.delayed('a', 50); // a retry: ready at 50
      flush();
      expect(depths).to.deep.equal(['0 depth 1', '0 depth 0', '0 depth 1', '0 depth 0', '50 depth 1']);
      expect(adds()).to.equal(3);
      model.clear();
      expect(model.depth).to.equal(0);
    });
  });

  it('matches the operator: once every run is over, adds equal runs started and the depth is 0 (property)', () => {
    const schedule = fc.array(fc.record({ at: fc.nat(200), key: fc.constantFrom('a', 'b', 'c'), fail: fc.boolean(), ms: fc.nat(30) }), { maxLength: 25 });
    fc.assert(fc.property(schedule, fc.integer({ min: 1, max: 3 }), (triggers, concurrency) => {
      let ok = true;
      virtual(({ scheduler, flush }) => {
        const { model, adds } = observed(scheduler);
        const failures = new Map<string, boolean>(triggers.map((t) => [t.key, t.fail]));
        const input = new Subject<string>();
        let started = 0;
        input.pipe(reconcile(({ key, attempt }) => {
          if (failures.get(key) === true && attempt === 1) throw new Error('once');
          return timer(triggers.find((t) => t.key === key)!.ms, scheduler);
        }, { concurrency, scheduler, globalRateLimiter: false })).subscribe((event) => {
          if (event.type === 'started') started++;
          feed(model, event);
        });
        for (const t of triggers) scheduler.schedule(() => { model.trigger(t.key); input.next(t.key); }, t.at);
        flush();
        ok = adds() === started && model.depth === 0;
      });
      return ok;
    }));
  });
});

describe('OutcomeFolder', () => {
  it('folds each run into one outcome: success, requeue_after, error with its retry or drop, terminal at once', () => {
    virtual(({ scheduler, flush }) => {
      const outcomes: RunOutcome[] = [];
      const folder = new OutcomeFolder(scheduler, (outcome) => outcomes.push(outcome));
      const base = { attempt: 1, reasons: ['added'], queueWaitMs: 0, durationMs: 3, time: 0 } as const;
      const error = new Error('x');
      folder.next({ type: 'succeeded', key: 'a', ...base });
      folder.next({ type: 'requeued', key: 'a', ...base, delayMs: 100 });
      folder.next({ type: 'failed', key: 'b', ...base, error, terminal: false });
      folder.next({ type: 'retrying', key: 'b', ...base, error, delayMs: 5, failures: 1 });
      folder.next({ type: 'failed', key: 'c', ...base, error, terminal: true });
      folder.next({ type: 'failed', key: 'd', ...base, error, terminal: false });
      folder.next({ type: 'dropped', key: 'd', ...base, error, failures: 6 });
      folder.next({ type: 'succeeded', key: 'e', ...base }); // no follow-up: reported by the 0 ms flush
      expect(outcomes.map((o) => `${o.key} ${o.result}`)).to.deep.equal(['a requeue_after', 'b error', 'c error', 'd error']);
      flush();
      expect(outcomes.map((o) => `${o.key} ${o.result}`)).to.deep.equal(['a requeue_after', 'b error', 'c error', 'd error', 'e success']);
      expect(outcomes[1]).to.include({ retryInMs: 5, failures: 1, terminal: false });
      expect(outcomes[2]).to.include({ terminal: true });
      expect(outcomes[3]).to.include({ dropped: true, failures: 6 });
    });
  });
});
