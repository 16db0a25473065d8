/**
 * Expectations as kube-controller-manager keeps them (`controller_utils_test.go`'s `TestControllerExpectations`
 * and `TestUIDExpectations`), on a clock the spec moves.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { EXPECTATIONS_TIMEOUT_MS, Expectations } from './expectations.js';

function clocked(timeoutMs?: number): { readonly expectations: Expectations; advance(ms: number): void } {
  let now = 1_000;
  return { expectations: new Expectations(() => now, timeoutMs), advance: (ms) => void (now += ms) };
}

describe('the replica-set example: expectations', () => {
  it('are satisfied for a PodSet nothing was expected of', () => {
    const { expectations } = clocked();
    expect(expectations.satisfied('default/web')).to.equal(true);
    expect(expectations.expiresIn('default/web')).to.equal(undefined);
  });

  it('hold a PodSet back until every expected creation was observed', () => {
    const { expectations } = clocked();
    expectations.expectCreations('default/web', 3);
    for (const left of [2, 1]) {
      expectations.creationObserved('default/web');
      expect(expectations.satisfied('default/web'), `${left} left`).to.equal(false);
    }
    expectations.creationObserved('default/web');
    expect(expectations.satisfied('default/web')).to.equal(true);
    // One more than expected (a create whose answer was lost, but which landed) is still satisfied.
    expectations.creationObserved('default/web');
    expect(expectations.satisfied('default/web')).to.equal(true);
  });

  it('count each expected deletion once, whether seen as the deletionTimestamp update or as the delete', () => {
    const { expectations } = clocked();
    expectations.expectDeletions('default/web', ['default/web-a', 'default/web-b']);
    expectations.deletionObserved('default/web', 'default/web-a');
    expectations.deletionObserved('default/web', 'default/web-a');
    expect(expectations.get('default/web')).to.deep.include({ del: 1, deleting: ['default/web-b'] });
    expect(expectations.satisfied('default/web')).to.equal(false);
    expectations.deletionObserved('default/web', 'default/web-b');
    expect(expectations.satisfied('default/web')).to.equal(true);
  });

  it('ignore deletions of pods they did not expect, and observations for PodSets they do not know', () => {
    const { expectations } = clocked();
    expectations.expectDeletions('default/web', ['default/web-a']);
    expectations.deletionObserved('default/web', 'default/web-z');
    expectations.deletionObserved('default/api', 'default/api-a');
    expectations.creationObserved('default/api');
    expect(expectations.get('default/web')).to.deep.include({ del: 1 });
    expect(expectations.get('default/api')).to.equal(undefined);
    expect(expectations.size).to.equal(1);
  });

  it('are replaced, not added to, when set again', () => {
    const { expectations } = clocked();
    expectations.expectCreations('default/web', 5);
    expectations.expectDeletions('default/web', ['default/web-a']);
    expect(expectations.get('default/web')).to.deep.equal({
      add: 0,
      del: 1,
      deleting: ['default/web-a'],
      since: 1_000,
    });
  });

  it('expire strictly after 5 minutes, and say when', () => {
    const { expectations, advance } = clocked();
    expectations.expectCreations('default/web', 1);
    expect(expectations.expiresIn('default/web')).to.equal(EXPECTATIONS_TIMEOUT_MS + 1);
    advance(EXPECTATIONS_TIMEOUT_MS);
    expect(expectations.satisfied('default/web')).to.equal(false);
    expect(expectations.expiresIn('default/web')).to.equal(1);
    advance(1);
    expect(expectations.satisfied('default/web')).to.equal(true);
    expect(expectations.expiresIn('default/web')).to.equal(undefined);
  });

  it('are forgotten on delete', () => {
    const { expectations } = clocked();
    expectations.expectCreations('default/web', 1);
    expectations.delete('default/web');
    expect(expectations.satisfied('default/web')).to.equal(true);
    expect(expectations.size).to.equal(0);
  });

  it('are forgotten for a PodSet of another uid under the same name, and kept for their own or when set without a uid', () => {
    const { expectations } = clocked();
    expectations.expectCreations('default/web', 1, 'uid-a');
    expectations.forgetOther('default/web', 'uid-a');
    expect(expectations.get('default/web')).to.deep.include({ add: 1, uid: 'uid-a' });
    expectations.forgetOther('default/web', 'uid-b');
    expect(expectations.satisfied('default/web')).to.equal(true);
    expect(expectations.size).to.equal(0);
    expectations.expectDeletions('default/web', ['default/web-a']);
    expectations.forgetOther('default/web', 'uid-b');
    expect(expectations.satisfied('default/web')).to.equal(false);
  });

  it('refuse a timeout that is not a positive number of ms', () => {
    expect(() => new Expectations(() => 0, 0)).to.throw(RangeError, 'timeoutMs must be a number of ms > 0, got 0');
  });

  it('are satisfied exactly when every expected creation and deletion was observed, in any order (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 6 }),
        fc.array(fc.oneof(fc.constant('create' as const), fc.integer({ min: 0, max: 12 })), { maxLength: 30 }),
        (adds, deleting, observations) => {
          const { expectations } = clocked();
          const podKeys = deleting.map((i) => `default/web-${i}`);
          expectations.expectCreations('default/web', adds);
          // Creations and deletions are expected by separate syncs; model the deletions on a second key.
          expectations.expectDeletions('default/api', podKeys);
          let created = 0;
          const seen = new Set<string>();
          for (const observation of observations) {
            if (observation === 'create') {
              expectations.creationObserved('default/web');
              created += 1;
            } else {
              expectations.deletionObserved('default/api', `default/web-${observation}`);
              seen.add(`default/web-${observation}`);
            }
          }
          expect(expectations.satisfied('default/web')).to.equal(created >= adds);
          expect(expectations.satisfied('default/api')).to.equal(podKeys.every((key) => seen.has(key)));
        },
      ),
    );
  });
});
