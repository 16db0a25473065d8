import { expect } from 'chai';
import { config, filter, map, merge, Observable, Subject, timer, VirtualTimeScheduler } from 'rxjs';
import { HIGH_PRIORITY, LOW_PRIORITY, NORMAL_PRIORITY, reconcile } from '../../../src/controller/index.js';
import type {
  ReconcileEvent,
  ReconcileKeyRequest,
  ReconcileMetrics,
  ReconcileQueueView,
  ReconcileResult,
  ReconcileTrigger,
} from '../../../src/controller/index.js';
import { collect, timeline, virtual } from '../helpers.js';

const low = (key: string): ReconcileTrigger => ({ key, priority: LOW_PRIORITY });
const high = (key: string): ReconcileTrigger => ({ key, priority: HIGH_PRIORITY });
const normal = (key: string): ReconcileTrigger => ({ key });
const starts = (events: readonly ReconcileEvent[]): string[] =>
  events.filter((event) => event.type === 'started').map((event) => `${event.time} ${event.key}`);

describe('reconcile: priorities, aging and fairness (marbles)', () => {
  /** What the reconcile functions of a spec saw: `key@priority` and more. */
  const priorities: string[] = [];
  beforeEach(() => void (priorities.length = 0));

  it('starts the ready keys of a higher priority first: high, then normal, then low, each first come first served', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      // z holds the only slot while the others become ready.
      const triggers = hot<ReconcileTrigger>('(zabcdef)', {
        z: normal('z'),
        a: low('a'),
        b: normal('b'),
        c: high('c'),
        d: low('d'),
        e: high('e'),
        f: normal('f'),
      });
      return timeline(triggers.pipe(reconcile(() => cold<never>('--|'))), scheduler);
    });
    expect(lines.filter((line) => line.includes('started'))).to.deep.equal([
      '0 started z#1',
      '2 started c#1',
      '4 started e#1',
      '6 started b#1',
      '8 started f#1',
      '10 started a#1',
      '12 started d#1',
    ]);
  });

  it("gives a key the highest priority of its coalesced triggers, at the end of that priority's line", () => {
    const events = virtual(({ hot, cold }) => {
      const triggers = hot<ReconcileTrigger>('(zabA)', { z: normal('z'), a: low('a'), b: high('b'), A: high('a') });
      return collect(
        triggers.pipe(
          reconcile((request: ReconcileKeyRequest) => {
            priorities.push(`${request.key}@${request.priority}`);
            return cold<never>('--|');
          }),
        ),
      );
    });
    // a was ready at low when it was triggered again at high: it runs with the highs, after b, which was there first.
    expect(starts(events)).to.deep.equal(['0 z', '2 b', '4 a']);
    expect(priorities).to.deep.equal(['z@0', 'b@100', 'a@100']);
  });
  it('lets an overdue key through at the stated time, then one start in `every`, however many higher keys wait (aging)', () => {
    virtual(({ hot, cold, expectObservable }) => {
      // z holds the slot at 0; L1 and L2 (low) became ready first, then twelve high keys: every run takes 10 ms.
      const values: Record<string, ReconcileTrigger> = { z: normal('z'), l: low('L1'), m: low('L2') };
      const highs = Array.from({ length: 12 }, (_, i) => String.fromCharCode(65 + i));
      for (const h of highs) values[h] = high(h);
      const triggers = hot<ReconcileTrigger>(`(zlm${highs.join('')})`, values);
      const started$ = triggers.pipe(
        reconcile(() => cold<never>('10ms |'), { aging: { after: 50, every: 2 } }),
        filter((event) => event.type === 'started'),
        map((event) => event.key),
      );
      // Overdue from 50: L1 starts at 50 exactly, and from then one start in two goes to the oldest (L2 at 70).
      const names: Record<string, string> = { z: 'z', l: 'L1', m: 'L2' };
      for (const h of highs) names[h] = h;
      expectObservable(started$).toBe(
        'z 9ms A 9ms B 9ms C 9ms D 9ms l 9ms E 9ms m 9ms F 9ms G 9ms H 9ms I 9ms J 9ms K 9ms L',
        names,
      );
    });
  });

  it("gives an aging start that falls due early to the backlog's own turn, so that a high key arriving next is not held back", () => {
    const events = virtual(({ hot, cold }) => {
      // z holds the only slot at 0 while a backlog of low keys in four namespaces becomes ready; every run takes
      // 10 ms, and the backlog is overdue from 5. H (high) arrives at 45, while c/1 runs.
      const backlog = ['a', 'b', 'c', 'd'].flatMap((ns) => [1, 2, 3].map((i) => low(`${ns}/${i}`)));
      const values: Record<string, ReconcileTrigger> = { z: normal('z'), H: high('H') };
      backlog.forEach((trigger, i) => (values[String(i)] = trigger));
      const triggers = merge(
        hot<ReconcileTrigger>(
          `(z${Object.keys(values)
            .filter((k) => /^\d+$/.test(k))
            .join('')})`,
          values,
        ),
        hot<ReconcileTrigger>('45ms H', values),
      );
      return collect(triggers.pipe(reconcile(() => cold<never>('10ms |'), { aging: { after: 5, every: 4 } })));
    });
    // Round-robin takes a/1, b/1, c/1 (the last two pass over the oldest, a/2). At 40 the turn is d's, at low: the
    // aging start comes early there (a/2) instead of at 50, where it would have taken the slot from H.
    expect(starts(events).slice(0, 8)).to.deep.equal([
      '0 z',
      '10 a/1',
      '20 b/1',
      '30 c/1',
      '40 a/2',
      '50 H',
      '60 d/1',
      '70 a/3',
    ]);
  });

  it('puts an aging start off while a burst of high keys takes the slots that free together, and makes it up at the backlog’s turn', () => {
    const events = virtual(({ hot, cold }) => {
      // Two slots, both busy with z1 and z2 until 10; three low keys are ready from 0 and overdue from 5. Two high
      // keys arrive at 8, so both slots free at 10 with both high keys waiting.
      const values: Record<string, ReconcileTrigger> = {
        a: normal('z1'),
        b: normal('z2'),
        c: low('L1'),
        d: low('L2'),
        e: low('L3'),
        H: high('H1'),
        I: high('H2'),
      };
      const triggers = merge(hot<ReconcileTrigger>('(abcde)', values), hot<ReconcileTrigger>('8ms (HI)', values));
      return collect(
        triggers.pipe(reconcile(() => cold<never>('10ms |'), { concurrency: 2, aging: { after: 5, every: 2 } })),
      );
    });
    // With one slot, aging would owe L1 the second start at 10 and H2 would wait a run. With two, it may pass L1
    // over (every - 1) · 2 = 2 times: both high keys start at 10, and L1 gets the next start, at 20.
    expect(starts(events)).to.deep.equal(['0 z1', '0 z2', '10 H1', '10 H2', '20 L1', '20 L2', '30 L3']);
  });

  it('serves strictly by priority while nothing is overdue: aging changes no order below `after`', () => {
    const events = virtual(({ hot, cold }) => {
      const triggers = hot<ReconcileTrigger>('(zlABC)', {
        z: normal('z'),
        l: low('L'),
        A: high('A'),
        B: high('B'),
        C: high('C'),
      });
      return collect(triggers.pipe(reconcile(() => cold<never>('10ms |'), { aging: { after: 40, every: 1 } })));
    });
    expect(starts(events)).to.deep.equal(['0 z', '10 A', '20 B', '30 C', '40 L']);
  });

  it("serves the groups of one priority round-robin: a namespace that floods the queue delays another namespace's key by one run", () => {
    const events = virtual(({ hot, cold }) => {
      const flood = Array.from({ length: 1000 }, (_, i) => `flood/k${i}`);
      const keys = ['z', ...flood, 'quiet/one', 'flood/late', 'other/two'];
      const triggers = hot<string>(`(${'x'.repeat(keys.length)})`).pipe(map((_, i) => keys[i]!));
      return collect(triggers.pipe(reconcile(() => cold<never>('|'), { gate: hot('-t', { t: true }) })));
    });
    // The gate holds everything until 1, then the groups take turns in the order they got a ready key: '' (z), the
    // flood, quiet, other; after one round only the flood is left.
    expect(starts(events).slice(0, 6)).to.deep.equal([
      '1 z',
      '1 flood/k0',
      '1 quiet/one',
      '1 other/two',
      '1 flood/k1',
      '1 flood/k2',
    ]);
    expect(starts(events).at(-1)).to.equal('1 flood/late');
  });

  it("groups keys by a fairness function of the user (a tenant), and serves first come first served with () => ''", () => {
    const keys = ['t1-ns/a', 't1-ns/b', 't1-other/c', 't2-ns/d'];
    const run = (fairness: (key: string) => string) =>
      virtual(({ hot, cold }) => {
        const triggers = hot<string>('(abcd)', { a: keys[0]!, b: keys[1]!, c: keys[2]!, d: keys[3]! });
        return collect(triggers.pipe(reconcile(() => cold<never>('|'), { fairness, gate: hot('-t', { t: true }) })));
      });
    expect(starts(run((key) => key.slice(0, 2)))).to.deep.equal([
      '1 t1-ns/a',
      '1 t2-ns/d',
      '1 t1-ns/b',
      '1 t1-other/c',
    ]);
    expect(starts(run(() => ''))).to.deep.equal(keys.map((key) => `1 ${key}`));
  });

  it("runs a requeue at the priority it asked for, else at its run's, and a retry at its run's", () => {
    const events = virtual(({ hot, cold }) => {
      const outcomes: Record<string, ReconcileResult[]> = {
        up: [{ requeueAfter: 5, priority: HIGH_PRIORITY }],
        same: [{ requeueAfter: 5 }],
      };
      const fn = (request: ReconcileKeyRequest): Observable<unknown> => {
        priorities.push(`${request.key}@${request.priority}`);
        if (request.key === 'fails' && request.attempt === 1) return cold('#');
        const next = outcomes[request.key]?.shift();
        return next === undefined ? cold('|') : cold('(r|)', { r: next });
      };
      const triggers = hot<ReconcileTrigger>('(abc)', { a: low('up'), b: low('same'), c: low('fails') });
      return collect(triggers.pipe(reconcile(fn, { concurrency: 3 })));
    });
    expect(events.filter((event) => event.type === 'requeued' || event.type === 'retrying').length).to.equal(3);
    expect(priorities).to.deep.equal(['up@-100', 'same@-100', 'fails@-100', 'up@100', 'same@-100', 'fails@-100']);
  });

  it('pulls a delayed low requeue forward at the higher priority of the fresh trigger, with both reasons', () => {
    const events = virtual(({ hot, cold }) => {
      let calls = 0;
      const fn = (request: ReconcileKeyRequest): Observable<unknown> => {
        priorities.push(`${request.key}@${request.priority} ${request.reasons.join(',')}`);
        return calls++ === 0 ? cold('(r|)', { r: { requeueAfter: 100, priority: LOW_PRIORITY } }) : cold('|');
      };
      return collect(
        hot<ReconcileTrigger>('a 9ms b', {
          a: { key: 'k', reason: 'first' },
          b: { key: 'k', reason: 'live', priority: HIGH_PRIORITY },
        }).pipe(reconcile(fn)),
      );
    });
    expect(starts(events)).to.deep.equal(['0 k', '10 k']);
    expect(priorities).to.deep.equal(['k@0 first', 'k@100 requeue,live']);
  });

  it('keeps the priority of a run the gate closure interrupted for the run that replaces it', () => {
    const events = virtual(({ hot, cold }) => {
      let calls = 0;
      const fn = (request: ReconcileKeyRequest): Observable<never> => {
        priorities.push(`${request.key}@${request.priority}#${request.attempt}`);
        if (calls++ > 0) return cold<never>('|');
        // The first run fails with its signal's reason when the gate closes.
        return new Observable<never>((subscriber) =>
          request.signal.addEventListener('abort', () => subscriber.error(request.signal.reason)),
        );
      };
      // l waits at low behind h; the gate closes at 2 and opens at 12: h's interrupted run goes first again, at high.
      const gate = hot('t-f 9ms t', { t: true, f: false });
      return collect(hot<ReconcileTrigger>('hl', { h: high('h'), l: low('l') }).pipe(reconcile(fn, { gate })));
    });
    expect(starts(events)).to.deep.equal(['0 h', '12 h', '12 l']);
    expect(priorities).to.deep.equal(['h@100#1', 'h@100#1', 'l@-100#1']);
  });

  it("tells the metrics hook the priority of each add and start, and splits the view's depth by priority", () => {
    const calls: string[] = [];
    let view: ReconcileQueueView | undefined;
    const metrics: ReconcileMetrics = {
      opened: (queue) => void (view = queue),
      added: (key, priority) => void calls.push(`added ${key}@${priority}`),
      started: (key, _wait, priority) => void calls.push(`started ${key}@${priority}`),
    };
    const scheduler = new VirtualTimeScheduler();
    const triggers = new Subject<ReconcileTrigger>();
    triggers.pipe(reconcile(() => timer(10, scheduler), { scheduler, metrics })).subscribe();
    triggers.next(normal('a'));
    triggers.next(low('b'));
    triggers.next(high('c'));
    triggers.next(low('a')); // a runs: its next run is dirty, at low
    triggers.next(high('b')); // raised while ready
    expect(view!.depth).to.equal(3);
    expect([...view!.depthByPriority].sort()).to.deep.equal([
      [-100, 1],
      [100, 2],
    ]);
    scheduler.flush();
    expect(view!.depthByPriority.size).to.equal(0);
    expect(calls).to.deep.equal([
      'added a@0',
      'started a@0',
      'added b@-100',
      'added c@100',
      'added a@-100',
      'started c@100',
      'started b@100',
      'started a@-100',
    ]);
  });
  it('counts a key that waits for its readiness in the depth at the priority of the run it waits for', () => {
    let view: ReconcileQueueView | undefined;
    const started: string[] = [];
    const scheduler = new VirtualTimeScheduler();
    const triggers = new Subject<ReconcileTrigger>();
    triggers
      .pipe(
        reconcile(
          (request: ReconcileKeyRequest) => {
            started.push(`${request.key}@${request.priority}`);
          },
          {
            scheduler,
            metrics: { opened: (queue) => void (view = queue) },
            readiness: { wait: (key) => (key === 'a' ? timer(50, scheduler).pipe(map(() => undefined)) : undefined) },
          },
        ),
      )
      .subscribe();
    triggers.next(high('a'));
    triggers.next(low('b'));
    expect(started).to.deep.equal(['b@-100']);
    expect(view!.depth).to.equal(1);
    expect([...view!.depthByPriority]).to.deep.equal([[100, 1]]);
    scheduler.flush();
    expect(started).to.deep.equal(['b@-100', 'a@100']);
    expect(view!.depthByPriority.size).to.equal(0);
  });
});

describe('reconcile: priority and ordering input', () => {
  it('rejects a trigger whose priority is not a safe integer, and runs nothing for it', () => {
    const events: ReconcileEvent[] = [];
    const triggers = new Subject<ReconcileTrigger>();
    triggers.pipe(reconcile(() => undefined)).subscribe((event) => events.push(event));
    for (const priority of [1.5, Number.NaN, '1', Number.MAX_VALUE])
      triggers.next({ key: 'a', priority: priority as number });
    expect(events.map((event) => event.type)).to.deep.equal(['rejected', 'rejected', 'rejected', 'rejected']);
    const first = events[0]!;
    expect(first.type === 'rejected' && first.error.message).to.match(/priority\?: safe integer/);
    triggers.next({ key: 'a', priority: NORMAL_PRIORITY });
    expect(events.at(-1)!.type).to.equal('succeeded');
  });

  it('fails a run whose requeue has a priority that is not a safe integer (a broken requeue never passes silently)', () => {
    const out: ReconcileEvent[] = [];
    const triggers = new Subject<string>();
    triggers
      .pipe(reconcile(() => ({ requeueAfter: 5, priority: 'high' }), { globalRateLimiter: false, maxRetries: 0 }))
      .subscribe((event) => out.push(event));
    triggers.next('a');
    const failed = out.find((event) => event.type === 'failed');
    expect(failed?.type === 'failed' && (failed.error as Error).message).to.match(/priority must be a safe integer/);
  });

  it('refuses bad aging and fairness options where they are written', () => {
    expect(() => reconcile(() => undefined, { aging: { every: 0 } })).to.throw(
      RangeError,
      /aging.every must be an integer >= 1/,
    );
    expect(() => reconcile(() => undefined, { aging: { after: -1 } })).to.throw(RangeError, /aging.after/);
    expect(() => reconcile(() => undefined, { aging: 5 as never })).to.throw(TypeError, /aging must be an object/);
    expect(() => reconcile(() => undefined, { fairness: 'namespace' as never })).to.throw(
      TypeError,
      /fairness must be a function/,
    );
  });

  it("puts a key whose fairness function throws in the group '', reports it, and runs it", () => {
    const reported: Error[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => void reported.push(error as Error);
    try {
      const started: string[] = [];
      const triggers = new Subject<string>();
      const gate = new Subject<boolean>();
      triggers
        .pipe(
          reconcile(({ key }) => void started.push(key), {
            gate,
            fairness: (key) => {
              if (key === 'bad/x') throw new Error('no tenant');
              return key;
            },
          }),
        )
        .subscribe();
      triggers.next('bad/x');
      triggers.next('ok/y');
      gate.next(true);
      expect(started).to.deep.equal(['bad/x', 'ok/y']);
    } finally {
      config.onUnhandledError = previous;
    }
    expect(reported.map((error) => error.message)).to.deep.equal([
      "reconcile: the fairness function failed for bad/x, which joins the group '': no tenant",
    ]);
  });
});
