import { expect } from 'chai';
import fc from 'fast-check';
import { ReadySet, namespaceOf } from '../../../src/controller/reconcile/ready-set.js';
import type { ReadyEntry } from '../../../src/controller/reconcile/ready-set.js';

/** One operation on the set; keys are drawn from a few namespaces, priorities from a few levels. */
type Operation =
  | { readonly op: 'add'; readonly key: number; readonly priority: number; readonly advance: number }
  | { readonly op: 'raise'; readonly pick: number; readonly by: number }
  | { readonly op: 'take'; readonly advance: number }
  | { readonly op: 'takeAbove'; readonly above: number }
  | { readonly op: 'clear' };

const KEYS = 24;
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      key: fc.nat(KEYS - 1),
      priority: fc.constantFrom(-100, 0, 10),
      advance: fc.nat(20),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('raise' as const), pick: fc.nat(), by: fc.integer({ min: 1, max: 150 }) }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('take' as const), advance: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('takeAbove' as const), above: fc.constantFrom(-100, 0, 10) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

interface Modelled extends ReadyEntry {
  /** When the model saw it enter (its order in the age list). */
  entered: number;
  /** When it last entered its priority level, by add or raise (its order in its group's FIFO). */
  queued: number;
}

describe('ReadySet, against a model of the ready keys', () => {
  it('holds exactly the keys added and not taken; a take returns the oldest overdue key or one of the highest priority present, first in first out within a group; an owed aging start is never skipped and an early or deferred one never displaces a higher key; takeAbove only above its floor', () => {
    fc.assert(
      fc.property(
        fc.array(operationArb, { maxLength: 120 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        (operations, every, slots) => {
          const after = 30;
          const set = new ReadySet<Modelled>(undefined, { after, every, slots }, () => undefined);
          /** Passes the oldest key may have accumulated before a take must be it. */
          const limit = (every - 1) * slots;
          const records = Array.from({ length: KEYS }, (_, i) => ({
            key: `ns-${i % 3}/k${i}`,
            priority: 0,
            readyAt: 0,
            link: undefined,
            entered: 0,
            queued: 0,
          }));
          const ready = new Set<Modelled>();
          let now = 0;
          let sequence = 0;
          /**
           * The model's count of passes not made up: +1 for a take that passes the oldest ready key over, -(every - 1)
           * for a take of it, within [0, limit] (takeAbove does not count).
           */
          let sinceOldest = 0;
          const check = (taken: Modelled | undefined, how: string, above?: number): void => {
            if (taken === undefined) return;
            expect(ready.has(taken), `${how} returned ${taken.key}, which is not ready`).to.equal(true);
            ready.delete(taken);
            const rivals = [...ready];
            const group = rivals.filter(
              (other) => other.priority === taken.priority && namespaceOf(other.key) === namespaceOf(taken.key),
            );
            const oldest = [taken, ...rivals].reduce((a, b) => (b.entered < a.entered ? b : a));
            const overdue = now - oldest.readyAt >= after;
            const byAging = how === 'take' && taken === oldest && overdue;
            if (how === 'take') {
              const higherReady = rivals.some((other) => other.priority > oldest.priority);
              // Owed: an overdue oldest key is taken once the passes reach the limit, whatever waits above it.
              if (overdue && sinceOldest >= limit)
                expect(taken, `take passed over the overdue ${oldest.key} past ${limit} passes`).to.equal(oldest);
              // Early or deferred: an aging start that is not owed yet never takes the slot of a higher key.
              if (byAging && higherReady && rivals.length > 0)
                expect(sinceOldest, `an aging start of ${taken.key} displaced a higher key early`).to.be.at.least(
                  limit,
                );
              sinceOldest =
                taken === oldest ? Math.max(0, sinceOldest - (every - 1)) : Math.min(limit, sinceOldest + 1);
            }
            if (!byAging) {
              const highest = Math.max(taken.priority, ...rivals.map((other) => other.priority));
              expect(taken.priority, `${how} returned ${taken.key} below the highest priority ready`).to.equal(highest);
              for (const other of group)
                expect(other.queued, `${how} returned ${taken.key} before ${other.key} of its group`).to.be.greaterThan(
                  taken.queued,
                );
            }
            if (above !== undefined) expect(taken.priority).to.be.greaterThan(above);
          };
          for (const operation of operations) {
            if (operation.op === 'add') {
              const record = records[operation.key]!;
              if (ready.has(record)) continue;
              now += operation.advance;
              record.priority = operation.priority;
              record.entered = record.queued = sequence++;
              set.add(record, now);
              ready.add(record);
            } else if (operation.op === 'raise') {
              const list = [...ready];
              if (list.length === 0) continue;
              const record = list[operation.pick % list.length]!;
              record.queued = sequence++;
              set.raise(record, record.priority + operation.by);
            } else if (operation.op === 'take') {
              now += operation.advance;
              const taken = set.take(now);
              expect(taken === undefined, 'take returned nothing though keys are ready').to.equal(ready.size === 0);
              check(taken, 'take');
            } else if (operation.op === 'takeAbove') {
              const taken = set.takeAbove(operation.above);
              const any = [...ready].some((record) => record.priority > operation.above);
              expect(taken === undefined, `takeAbove(${operation.above}) and the keys above it`).to.equal(!any);
              check(taken, 'takeAbove', operation.above);
            } else {
              set.clear();
              ready.clear();
              sinceOldest = 0;
              for (const record of records) record.link = undefined;
            }
            expect(set.size).to.equal(ready.size);
            const counted = new Map<number, number>();
            set.forEachPriority((priority, keys) => counted.set(priority, (counted.get(priority) ?? 0) + keys));
            const expected = new Map<number, number>();
            for (const record of ready) expected.set(record.priority, (expected.get(record.priority) ?? 0) + 1);
            expect(counted).to.deep.equal(expected);
          }
          // Draining returns every key still ready, once each.
          while (ready.size > 0) {
            now += 1;
            const taken = set.take(now);
            expect(taken, 'a ready key was lost').to.not.equal(undefined);
            check(taken, 'take');
          }
          expect(set.take(now)).to.equal(undefined);
          expect(set.size).to.equal(0);
        },
      ),
      { numRuns: 400 },
    );
  });
});
