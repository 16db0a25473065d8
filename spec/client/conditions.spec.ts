/**
 * Status conditions, as apimachinery's `meta` package keeps them: the transition time moves only with the status,
 * and the helpers work in place on plain objects and Immer drafts alike.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { asyncScheduler, VirtualTimeScheduler } from 'rxjs';
import { monotonicScheduler } from '../../src/clock/index.js';
import {
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
  type ConditionHolder,
  type ConditionUpdate,
} from '../../src/client/conditions/index.js';
import { recipeChanges, toJsonPatch } from '../../src/client/patch/index.js';
import { withSteppedWallClock } from '../leader/wall-clock.js';

const clock = (ms: number) => ({ now: () => ms });

describe('client: status conditions', () => {
  it('appends a new condition stamped now, creating the list, and says it changed something', () => {
    const status: ConditionHolder = {};
    expect(
      setStatusCondition(
        status,
        { type: 'Ready', status: 'False', reason: 'Starting', observedGeneration: 1 },
        { scheduler: clock(1999) },
      ),
    ).to.equal(true);
    expect(status.conditions).to.deep.equal([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Starting',
        message: '',
        lastTransitionTime: '1970-01-01T00:00:01Z',
        observedGeneration: 1,
      },
    ]);
  });

  it('moves lastTransitionTime only when the status changes, whatever the updates (property)', () => {
    const updateArb: fc.Arbitrary<ConditionUpdate> = fc.record({
      type: fc.constantFrom('Ready', 'Progressing', 'example.com/Audited'),
      status: fc.constantFrom('True' as const, 'False' as const, 'Unknown' as const),
      reason: fc.constantFrom('A', 'B'),
      message: fc.string({ maxLength: 3 }),
      observedGeneration: fc.option(fc.nat(3), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(updateArb, { maxLength: 4 }), { maxLength: 8 }), (rounds) => {
        const status: ConditionHolder = {};
        rounds.forEach((updates, round) => {
          const now = conditionTime((round + 1) * 1000);
          for (const update of updates) {
            const before = structuredClone(findStatusCondition(status.conditions, update.type));
            const order = status.conditions?.map((c) => c.type) ?? [];
            const changed = setStatusCondition(status, update, { scheduler: clock((round + 1) * 1000) });
            const after = findStatusCondition(status.conditions, update.type)!;
            const flipped = before === undefined || before.status !== update.status;
            expect(after.lastTransitionTime).to.equal(flipped ? now : before.lastTransitionTime);
            expect(after).to.deep.equal({
              type: update.type,
              status: update.status,
              reason: update.reason,
              message: update.message,
              lastTransitionTime: after.lastTransitionTime,
              ...(update.observedGeneration !== undefined ? { observedGeneration: update.observedGeneration } : {}),
            });
            expect(changed).to.equal(before === undefined || JSON.stringify(before) !== JSON.stringify(after));
            // Existing conditions keep their places; a new one comes last.
            expect(status.conditions!.map((c) => c.type)).to.deep.equal(
              before === undefined ? [...order, update.type] : order,
            );
          }
        });
      }),
    );
  });

  it('keeps the transition time on a new reason, message or generation, and takes them', () => {
    const status: ConditionHolder = {};
    setStatusCondition(
      status,
      { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: 1 },
      { scheduler: clock(0) },
    );
    expect(
      setStatusCondition(
        status,
        { type: 'Ready', status: 'True', reason: 'StillAvailable', message: 'm', observedGeneration: 2 },
        { scheduler: clock(5000) },
      ),
    ).to.equal(true);
    expect(status.conditions).to.deep.equal([
      {
        type: 'Ready',
        status: 'True',
        reason: 'StillAvailable',
        message: 'm',
        lastTransitionTime: '1970-01-01T00:00:00Z',
        observedGeneration: 2,
      },
    ]);
    expect(
      setStatusCondition(
        status,
        { type: 'Ready', status: 'True', reason: 'StillAvailable', message: 'm', observedGeneration: 2 },
        { scheduler: clock(9000) },
      ),
    ).to.equal(false);
    // An update without observedGeneration removes it, as apimachinery's zero value does.
    setStatusCondition(status, { type: 'Ready', status: 'True', reason: 'StillAvailable', message: 'm' });
    expect(status.conditions![0]).not.to.have.property('observedGeneration');
  });

  it("takes the update's lastTransitionTime on a transition, and the scheduler's now by default", () => {
    const status: ConditionHolder = {};
    setStatusCondition(status, {
      type: 'Ready',
      status: 'True',
      reason: 'A',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    expect(status.conditions![0]!.lastTransitionTime).to.equal('2026-01-01T00:00:00Z');
    const scheduler = new VirtualTimeScheduler();
    scheduler.schedule(() => undefined, 61_000);
    scheduler.flush();
    setStatusCondition(status, { type: 'Ready', status: 'False', reason: 'A' }, { scheduler });
    expect(status.conditions![0]!.lastTransitionTime).to.equal('1970-01-01T00:01:01Z');
  });

  it('stamps the wall clock after a wall-clock step, with the default, asyncScheduler and a controller\u2019s monotonicScheduler', async () => {
    const stamps = await withSteppedWallClock(async (step) => {
      step(Date.UTC(2031, 0, 2, 3, 4, 5) - Date.now());
      return [undefined, asyncScheduler, monotonicScheduler].map((scheduler) => {
        const status: ConditionHolder = {};
        setStatusCondition(
          status,
          { type: 'Ready', status: 'True', reason: 'Available' },
          scheduler === undefined ? {} : { scheduler },
        );
        return status.conditions![0]!.lastTransitionTime;
      });
    });
    // The real clock runs on under the offset: the stamp is a few seconds past the step at most.
    for (const stamp of stamps) expect(stamp).to.match(/^2031-01-02T03:04:\d{2}Z$/);
  });

  it('works inside an Immer draft: only what changed is sent, and an unchanged condition sends nothing', () => {
    const base = {
      metadata: { name: 'web', generation: 3 },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Available',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            observedGeneration: 2,
          },
        ] as Condition[],
      },
    };
    const same = recipeChanges(base, (draft) => {
      setStatusCondition(
        draft.status,
        { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: 2 },
        { scheduler: clock(0) },
      );
    });
    expect(same.operations).to.deep.equal([]);
    expect(same.result).to.equal(base);

    const moved = recipeChanges(base, (draft) => {
      setStatusCondition(
        draft.status,
        { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: draft.metadata.generation },
        { scheduler: clock(0) },
      );
      setStatusCondition(
        draft.status,
        { type: 'Progressing', status: 'False', reason: 'Done' },
        { scheduler: clock(0) },
      );
    });
    expect(toJsonPatch(moved.operations)).to.deep.equal([
      { op: 'replace', path: '/status/conditions/0/observedGeneration', value: 3 },
      {
        op: 'add',
        path: '/status/conditions/1',
        value: {
          type: 'Progressing',
          status: 'False',
          reason: 'Done',
          message: '',
          lastTransitionTime: '1970-01-01T00:00:00Z',
        },
      },
    ]);
    expect(base.status.conditions[0]!.observedGeneration, 'the base is untouched').to.equal(2);
  });

  it('finds, tests and removes conditions by type', () => {
    const status: ConditionHolder = {};
    setStatusCondition(status, { type: 'Ready', status: 'True', reason: 'A' });
    setStatusCondition(status, { type: 'Degraded', status: 'False', reason: 'B' });
    setStatusCondition(status, { type: 'Progressing', status: 'Unknown', reason: 'C' });
    expect(findStatusCondition(status.conditions, 'Degraded')?.reason).to.equal('B');
    expect(findStatusCondition(undefined, 'Ready')).to.equal(undefined);
    expect([
      isStatusConditionTrue(status.conditions, 'Ready'),
      isStatusConditionFalse(status.conditions, 'Ready'),
    ]).to.deep.equal([true, false]);
    expect([
      isStatusConditionTrue(status.conditions, 'Degraded'),
      isStatusConditionFalse(status.conditions, 'Degraded'),
    ]).to.deep.equal([false, true]);
    expect([
      isStatusConditionTrue(status.conditions, 'Missing'),
      isStatusConditionFalse(status.conditions, 'Missing'),
    ]).to.deep.equal([false, false]);
    expect(isStatusConditionPresentAndEqual(status.conditions, 'Progressing', 'Unknown')).to.equal(true);
    expect(removeStatusCondition(status, 'Degraded')).to.equal(true);
    expect(removeStatusCondition(status, 'Degraded')).to.equal(false);
    expect(removeStatusCondition({}, 'Ready')).to.equal(false);
    expect(status.conditions!.map((c) => c.type)).to.deep.equal(['Ready', 'Progressing']);
  });

  it('refuses what the API would refuse, naming the field, and changes nothing', () => {
    const status: ConditionHolder = {};
    const bad: Array<[Partial<ConditionUpdate>, RegExp]> = [
      [{ type: '' }, /type "" must be a qualified name/],
      [{ type: 'a/b/c' }, /type "a\/b\/c" must be a qualified name/],
      [{ status: 'true' as never }, /status must be True, False or Unknown/],
      [{ reason: '' }, /reason "" must be/],
      [{ reason: 'has space' }, /reason "has space" must be/],
      [{ reason: 'Ends,' }, /reason "Ends," must be/],
      [{ observedGeneration: -1 }, /observedGeneration must be a whole number/],
      [{ observedGeneration: 1.5 }, /observedGeneration must be a whole number/],
      [{ lastTransitionTime: 'yesterday' }, /lastTransitionTime must be an RFC 3339 time/],
    ];
    for (const [change, message] of bad) {
      expect(() =>
        setStatusCondition(status, { type: 'Ready', status: 'True', reason: 'Available', ...change }),
      ).to.throw(message);
    }
    expect(status).to.deep.equal({});
  });

  it("cuts a message at the API's 32768 characters rather than have the status write refused", () => {
    const status: ConditionHolder = {};
    setStatusCondition(status, { type: 'Ready', status: 'False', reason: 'Failed', message: 'x'.repeat(40_000) });
    expect(status.conditions![0]!.message).to.have.length(32768);
  });
});
