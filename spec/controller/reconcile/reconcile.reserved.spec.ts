/**
 * `reconcile`'s held-back slots (`reserved`): marble specs of the order they give, and a property over random
 * schedules that lower keys never fill the held-back slots, that a ready key never waits while a slot it may use is
 * free, and that every trigger still runs.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Observable, VirtualTimeScheduler, mergeMap, of, throwError, timer } from 'rxjs';
import { HIGH_PRIORITY, LOW_PRIORITY, NORMAL_PRIORITY, reconcile } from '../../../src/controller/index.js';
import type { ReconcileEvent, ReconcileReadiness, ReconcileTrigger } from '../../../src/controller/index.js';
import { timeline, virtual } from '../helpers.js';

const low = (key: string): ReconcileTrigger => ({ key, priority: LOW_PRIORITY });
const high = (key: string): ReconcileTrigger => ({ key, priority: HIGH_PRIORITY });

describe('reconcile: held-back slots for live work (marbles)', () => {
  it('starts a live key at once while a backlog of low keys fills every slot it may fill', () => {
    const starts = (reserved: { slots: number } | undefined): string[] =>
      virtual(({ hot, cold, scheduler }) => {
        // Five low keys from a list at 0 (the group spans frames 0-6), then a live change at 8; every run takes 12 frames.
        const triggers = hot<ReconcileTrigger>('(abcde)-h', {
          a: low('a'),
          b: low('b'),
          c: low('c'),
          d: low('d'),
          e: low('e'),
          h: high('h'),
        });
        return timeline(
          triggers.pipe(reconcile(() => cold<never>('------------|'), { concurrency: 3, reserved })),
          scheduler,
        );
      }).filter((line) => line.includes('started'));
    expect(starts({ slots: 1 })).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '8 started h#1',
      '12 started c#1',
      '12 started d#1',
      '24 started e#1',
    ]);
    // Without it the list takes every slot, and the live change waits for the first run to end.
    expect(starts(undefined)).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '0 started c#1',
      '12 started h#1',
      '12 started d#1',
      '12 started e#1',
    ]);
  });

  it('lets every key above `above` use a held-back slot, and a key at `above` use only the others', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      const triggers = hot<ReconcileTrigger>('(ab)-n-m', {
        a: { key: 'a', priority: NORMAL_PRIORITY },
        b: { key: 'b', priority: NORMAL_PRIORITY },
        n: { key: 'n', priority: NORMAL_PRIORITY },
        m: high('m'),
      });
      return timeline(
        triggers.pipe(
          reconcile(() => cold<never>('----------|'), {
            concurrency: 3,
            reserved: { slots: 1, above: NORMAL_PRIORITY },
          }),
        ),
        scheduler,
      );
    });
    // n (normal, at 5) may not take the held-back slot; m (high, at 7) takes it at once; n waits for a normal slot.
    expect(lines.filter((line) => line.includes('started'))).to.deep.equal([
      '0 started a#1',
      '0 started b#1',
      '7 started m#1',
      '10 started n#1',
    ]);
  });

  it('gives a held-back slot to a key the readiness hook released only if it is above `above`', () => {
    const lines = virtual(({ hot, cold, scheduler }) => {
      // l and h wait for their readiness until 5; x, low, takes the one slot lower keys may use at 4.
      const readiness: ReconcileReadiness = {
        wait: (key) => (key === 'x' ? undefined : cold<undefined>('5ms (u|)', { u: undefined })),
      };
      const triggers = hot<ReconcileTrigger>('(lh)x', { l: low('l'), h: high('h'), x: low('x') });
      return timeline(
        triggers.pipe(
          reconcile(() => cold<never>('--------------------|'), {
            concurrency: 2,
            reserved: { slots: 1 },
            readiness,
          }),
        ),
        scheduler,
      );
    });
    // l was released first, but only h may take the held-back slot; l waits for x to end.
    expect(lines.filter((line) => line.includes('started'))).to.deep.equal([
      '4 started x#1',
      '5 started h#1',
      '24 started l#1',
    ]);
  });

  it('refuses a held-back share that would leave lower keys no slot, and other bad values, where written', () => {
    expect(() => reconcile(() => undefined, { concurrency: 2, reserved: { slots: 2 } })).to.throw(
      RangeError,
      /reserved.slots must be an integer >= 0 and below concurrency \(2\), got 2/,
    );
    expect(() => reconcile(() => undefined, { reserved: { slots: 1 } })).to.throw(
      RangeError,
      /below concurrency \(1\)/,
    );
    expect(() => reconcile(() => undefined, { concurrency: 4, reserved: { slots: 1.5 } })).to.throw(RangeError);
    expect(() => reconcile(() => undefined, { concurrency: 4, reserved: { slots: -1 } })).to.throw(RangeError);
    expect(() => reconcile(() => undefined, { concurrency: 4, reserved: { slots: 1, above: 0.5 } })).to.throw(
      RangeError,
      /reserved.above must be a safe integer/,
    );
    expect(() => reconcile(() => undefined, { concurrency: 4, reserved: {} as never })).to.throw(
      RangeError,
      /reserved.slots is required/,
    );
    expect(() => reconcile(() => undefined, { concurrency: 4, reserved: 1 as never })).to.throw(
      TypeError,
      /reserved must be an object/,
    );
    expect(() =>
      reconcile(() => undefined, { concurrency: Number.POSITIVE_INFINITY, reserved: { slots: 1000 } }),
    ).not.to.throw();
  });
});

/** A key's priority is fixed by its name, so that its class never changes while it waits. */
const PRIORITY_OF: Record<string, number> = { h1: HIGH_PRIORITY, h2: HIGH_PRIORITY, n1: NORMAL_PRIORITY };
const priorityOf = (key: string): number => PRIORITY_OF[key] ?? LOW_PRIORITY;
const keys = fc.constantFrom('h1', 'h2', 'n1', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6');

interface Scenario {
  readonly triggers: readonly { readonly at: number; readonly key: string }[];
  readonly calls: readonly { readonly duration: number; readonly fail: boolean; readonly requeue: boolean }[];
  readonly concurrency: number;
  readonly slots: number;
  readonly above: number;
}

const scenarios: fc.Arbitrary<Scenario> = fc
  .record({
    triggers: fc.array(fc.record({ at: fc.integer({ min: 0, max: 60 }), key: keys }), { minLength: 1, maxLength: 50 }),
    calls: fc.array(
      fc.record({
        duration: fc.integer({ min: 0, max: 9 }),
        fail: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
        requeue: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
      }),
      { maxLength: 80 },
    ),
    concurrency: fc.integer({ min: 2, max: 5 }),
    share: fc.double({ min: 0, max: 0.99, noNaN: true }),
    above: fc.constantFrom(LOW_PRIORITY, NORMAL_PRIORITY),
  })
  .map(({ share, ...rest }) => ({ ...rest, slots: Math.floor(share * rest.concurrency) }));

/** Plays a scenario in virtual time and returns its events. */
function play(scenario: Scenario): ReconcileEvent[] {
  const scheduler = new VirtualTimeScheduler();
  const events: ReconcileEvent[] = [];
  let calls = 0;
  const fn = ({ key }: { key: string }) => {
    const call = scenario.calls[calls++] ?? { duration: 1, fail: false, requeue: false };
    const result = call.requeue ? { requeueAfter: 3 } : undefined;
    return timer(call.duration, scheduler).pipe(
      mergeMap(() => (call.fail ? throwError(() => new Error(`${key} failed`)) : of(result))),
    );
  };
  new Observable<ReconcileTrigger>((subscriber) => {
    for (const { at, key } of scenario.triggers) {
      scheduler.schedule(() => subscriber.next({ key, priority: priorityOf(key) }), at);
    }
    scheduler.schedule(() => subscriber.complete(), 100);
  })
    .pipe(
      reconcile(fn, {
        scheduler,
        concurrency: scenario.concurrency,
        reserved: { slots: scenario.slots, above: scenario.above },
        globalRateLimiter: false,
        maxRetries: 2,
      }),
    )
    .subscribe((event) => events.push(event));
  scheduler.flush();
  return events;
}

/**
 * Replays `events` frame by frame and returns the first breach of the held-back slots: more runs at or below
 * `above` than `concurrency - slots`, or a key ready at the end of a frame while a slot it may use was free.
 */
function reservedViolation(scenario: Scenario, events: readonly ReconcileEvent[]): string | undefined {
  const { concurrency, slots, above } = scenario;
  const running = new Set<string>();
  const lowRunning = (): number => [...running].filter((key) => priorityOf(key) <= above).length;
  // When each run's key became ready: its wait start, or the end of its own previous run if it was dirty.
  const freed = new Map<string, number>();
  const waits: { key: string; from: number; to: number }[] = [];
  for (const event of events) {
    if (event.type !== 'started') {
      if (event.type === 'succeeded' || event.type === 'failed') freed.set(event.key, event.time);
      continue;
    }
    const from = Math.max(event.time - event.queueWaitMs, freed.get(event.key) ?? Number.NEGATIVE_INFINITY);
    if (from < event.time) waits.push({ key: event.key, from, to: event.time });
  }
  const frames = [...new Set(events.map((event) => event.time))];
  let at = 0;
  for (const [index, frame] of frames.entries()) {
    for (; at < events.length && events[at]!.time === frame; at += 1) {
      const event = events[at]!;
      if (event.type === 'started') running.add(event.key);
      else if (event.type === 'succeeded' || event.type === 'failed') running.delete(event.key);
      if (running.size > concurrency) return `${running.size} runs at ${frame}, concurrency ${concurrency}`;
      if (lowRunning() > concurrency - slots)
        return `${lowRunning()} runs at or below ${above} at ${frame}, more than ${concurrency} - ${slots}`;
    }
    // The state holds until the next frame: a key waiting anywhere in [frame, next) had to find no usable slot.
    const next = frames[index + 1] ?? Number.POSITIVE_INFINITY;
    for (const wait of waits) {
      if (wait.to <= frame || wait.from >= next || running.has(wait.key)) continue;
      const free = running.size < concurrency && (priorityOf(wait.key) > above || lowRunning() < concurrency - slots);
      if (free)
        return `${wait.key} waited at ${frame} (ready ${wait.from}, started ${wait.to}) with a usable slot free`;
    }
  }
  return undefined;
}

describe('reconcile: held-back slots (properties)', () => {
  it('never lets keys at or below `above` fill the held-back slots, never leaves a ready key beside a slot it may use, and runs every trigger', () => {
    fc.assert(
      fc.property(scenarios, (scenario) => {
        const events = play(scenario);
        expect(reservedViolation(scenario, events)).to.equal(undefined);
        for (const { at, key } of scenario.triggers) {
          const ran = events.some(
            (event) => (event.type === 'started' || event.type === 'dropped') && event.key === key && event.time >= at,
          );
          expect(ran, `${key} triggered at ${at} never ran after it`).to.equal(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('detects a low run in a held-back slot and a key left beside a free slot (the checker itself can fail)', () => {
    const scenario: Scenario = { triggers: [], calls: [], concurrency: 2, slots: 1, above: LOW_PRIORITY };
    const started = (key: string, time: number, queueWaitMs = 0): ReconcileEvent => ({
      type: 'started',
      key,
      attempt: 1,
      reasons: [],
      queueWaitMs,
      time,
    });
    expect(reservedViolation(scenario, [started('l1', 0), started('l2', 0)])).to.equal(
      '2 runs at or below -100 at 0, more than 2 - 1',
    );
    expect(reservedViolation(scenario, [started('l1', 0), started('h1', 5, 5)])).to.equal(
      'h1 waited at 0 (ready 0, started 5) with a usable slot free',
    );
  });
});
