import { expect } from 'chai';
import { isAlreadyExists, isConflict } from '../../src/transport/index.js';
import { leaderElection, microTime } from '../../src/leader/index.js';
import { base, candidate, described, election, expectNoOverlap } from './harness.js';

const t = true;
const f = false;
const ghostLease = (renewTime: string) => ({
  metadata: {},
  spec: { holderIdentity: 'ghost', leaseDurationSeconds: 15, acquireTime: renewTime, renewTime, leaseTransitions: 4 },
});

describe('leaderElection in virtual time', () => {
  it('acquires a free Lease, writing the record as client-go’s LeaseLock does', () => {
    election(({ scheduler, server }) => {
      const leading$ = leaderElection(server.transport('a'), { ...base, identity: 'a', scheduler });
      // GET (404) answered at 10, POST answered at 20.
      scheduler.expectObservable(leading$, '^ 999ms !').toBe('f 19ms t', { t, f });
      scheduler.schedule(() => {
        expect(server.lease()?.spec).to.deep.equal({
          holderIdentity: 'a',
          leaseDurationSeconds: 15,
          acquireTime: microTime(10),
          renewTime: microTime(10),
          leaseTransitions: 0,
        });
        expect(microTime(10)).to.equal('1970-01-01T00:00:00.010000Z');
      }, 500);
    });
  });

  it('renews every retryPeriod with a guarded replace, keeping acquireTime and leaseTransitions', () => {
    election((env) => {
      const a = candidate(env, 'a', { until: 9000 });
      env.scheduler.schedule(() => {
        const renewals = env.server.log.filter((s) => s.at > 20 && s.at < 9000);
        // Each renewal starts retryPeriod after the last one settled, and needs no read first.
        expect(renewals.map((s) => `${s.at} ${s.method}`)).to.deep.equal([
          '2030 PUT',
          '4040 PUT',
          '6050 PUT',
          '8060 PUT',
        ]);
        expect(env.server.lease()?.spec).to.deep.equal({
          holderIdentity: 'a',
          leaseDurationSeconds: 15,
          acquireTime: microTime(10),
          renewTime: microTime(8050),
          leaseTransitions: 0,
        });
        expect(a.timeline).to.deep.equal(['0 false', '20 true']);
      }, 8999);
    });
  });

  it('stops leading once renewDeadline passed since the last renewal was sent, before anyone else may take the Lease', () => {
    election((env) => {
      const a = candidate(env, 'a');
      const b = candidate(env, 'b', { at: 100, until: 30000 });
      env.scheduler.schedule(() => env.server.cut('a'), 3000);
      env.scheduler.schedule(() => {
        // a's last renewal was sent at 2020: it gives up at 12020 exactly.
        expect(a.timeline).to.deep.equal(['0 false', '20 true', '12020 false', '12020 complete']);
        expect(described(a.events).filter((e) => !e.includes('failed'))).to.deep.equal([
          '20 leader a',
          '20 acquired 0',
          '12020 lost renewDeadline',
        ]);
        expect(
          a.events.filter((e) => e.type === 'failed').map((e) => `${e.at} ${e.type === 'failed' && e.phase}`),
        ).to.deep.equal([
          // Each failed try is two requests: the fast-path replace, then the read of the slow path.
          '4050 renew',
          '6070 renew',
          '8090 renew',
          '10110 renew',
          '12030 release',
        ]);
        // b first saw a's renewal of 2030 at 3320; it takes over when that observation is 15 s old.
        expect(b.timeline).to.deep.equal(['100 false', '18340 true']);
        expect(env.server.lease()?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 1 });
        expectNoOverlap([a, b]);
      }, 29999);
    });
  });

  it('takes over a Lease whose holder went silent, leaseDuration after it first saw the record, not before', () => {
    election((env) => {
      env.server.put(ghostLease(microTime(0)));
      const b = candidate(env, 'b', { until: 20000 });
      env.scheduler.schedule(() => {
        // Observed at 10; reads at 3220 … 12850 show the same record, which must not restart the clock. The try after
        // 12850 is moved to 15010, the moment the observation expires, rather than the jittered 16050.
        expect(env.server.log.filter((s) => s.at <= 15030).map((s) => `${s.at} ${s.method}`)).to.deep.equal([
          '10 GET',
          '3220 GET',
          '6430 GET',
          '9640 GET',
          '12850 GET',
          '15020 GET',
          '15030 PUT',
        ]);
        expect(b.timeline).to.deep.equal(['0 false', '15030 true']);
        expect(described(b.events)).to.deep.equal(['10 leader ghost', '15030 leader b', '15030 acquired 5']);
        expect(env.server.lease()?.spec).to.include({
          holderIdentity: 'b',
          leaseTransitions: 5,
          leaseDurationSeconds: 15,
        });
      }, 19999);
    });
  });

  it('releases on unsubscribe (empty holder, 1 s), so a waiting candidate takes over at its next try', () => {
    election((env) => {
      const a = candidate(env, 'a', { until: 5000 });
      const b = candidate(env, 'b', { at: 50, until: 10000 });
      env.scheduler.schedule(() => {
        expect(env.server.lease()?.spec).to.deep.equal({
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: microTime(5010),
          renewTime: microTime(5010),
          leaseTransitions: 0,
        });
        expect(described(a.events).slice(-2)).to.deep.equal(['5020 leader (none)', '5020 released']);
      }, 5100);
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '20 true']);
        expect(b.timeline).to.deep.equal(['50 false', '6490 true']);
        expect(env.server.writes().filter((w) => parseInt(w, 10) <= 6490)).to.deep.equal([
          '20 a a',
          '2030 a a',
          '4040 a a',
          '5020 a ',
          '6490 b b',
        ]);
        expect(env.server.lease()?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 1 });
      }, 9999);
    });
  });

  it('does not release a Lease it never held', () => {
    election((env) => {
      env.server.put(ghostLease(microTime(0)));
      candidate(env, 'b', { until: 5000 });
      env.scheduler.schedule(() => {
        expect(env.server.log.map((s) => s.method)).to.deep.equal(['GET', 'GET']);
      }, 6000);
    });
  });

  describe('clock skew between candidates', () => {
    it('a holder whose clock is behind is not taken over while it renews (its renewTime looks two hours old)', () => {
      election((env) => {
        const a = candidate(env, 'a', { skew: -3_600_000, until: 60000 });
        const b = candidate(env, 'b', { skew: 3_600_000, at: 100, until: 60000 });
        env.scheduler.schedule(() => {
          expect(a.timeline).to.deep.equal(['0 false', '20 true']);
          expect(b.timeline).to.deep.equal(['100 false']);
          expect(env.server.writes().every((w) => w.endsWith(' a a'))).to.equal(true);
        }, 59999);
      });
    });

    it('a holder whose clock is ahead is taken over leaseDuration after it stops, not two hours later', () => {
      election((env) => {
        const a = candidate(env, 'a', { skew: 3_600_000 });
        const b = candidate(env, 'b', { skew: -3_600_000, at: 100, until: 30000 });
        env.scheduler.schedule(() => env.server.cut('a'), 3000);
        env.scheduler.schedule(() => {
          expect(a.timeline).to.deep.equal(['0 false', '20 true', '12020 false', '12020 complete']);
          expect(b.timeline).to.deep.equal(['100 false', '18340 true']);
          expectNoOverlap([a, b]);
        }, 29999);
      });
    });
  });

  describe('races between candidates', () => {
    it('two candidates creating the same Lease: one wins, the other gets AlreadyExists and follows', () => {
      election((env) => {
        const a = candidate(env, 'a', { until: 10000 });
        const b = candidate(env, 'b', { until: 10000 });
        env.scheduler.schedule(() => {
          expect(a.timeline).to.deep.equal(['0 false', '20 true']);
          expect(b.timeline).to.deep.equal(['0 false']);
          const conflict = b.events.find((e) => e.type === 'conflict');
          expect(conflict?.type === 'conflict' && conflict.phase).to.equal('acquire');
          expect(conflict?.type === 'conflict' && isAlreadyExists(conflict.error)).to.equal(true);
          expectNoOverlap([a, b]);
        }, 9999);
      });
    });

    it('two candidates replacing an expired Lease at the same moment: the stale resourceVersion gets 409 Conflict', () => {
      election((env) => {
        env.server.put(ghostLease(microTime(0)));
        const a = candidate(env, 'a', { until: 20000 });
        const b = candidate(env, 'b', { until: 20000 });
        env.scheduler.schedule(() => {
          expect(a.timeline).to.deep.equal(['0 false', '15030 true']);
          expect(b.timeline).to.deep.equal(['0 false']);
          const conflict = b.events.find((e) => e.type === 'conflict');
          expect(conflict?.type === 'conflict' && isConflict(conflict.error)).to.equal(true);
          expect(env.server.lease()?.spec).to.include({ holderIdentity: 'a', leaseTransitions: 5 });
        }, 19999);
      });
    });
  });
});
