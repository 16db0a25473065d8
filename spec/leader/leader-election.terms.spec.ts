import { expect } from 'chai';
import { leaderElection, microTime } from '../../src/leader/index.js';
import { base, candidate, described, election, expectNoOverlap } from './harness.js';

describe('leaderElection: one term at a time', () => {
  it('in standby, a release answered late does not clear the Lease of the next term: no two leaders', () => {
    election((env) => {
      // a campaigns again after each loss, as the manager's onLost: 'standby' does; its release read is answered
      // 2.1 s late. b polls every 800 ms.
      const a = candidate(env, 'a', { standby: true, lateRelease: 2100, until: 40_000 });
      const b = candidate(env, 'b', { at: 100, retryPeriod: 500, until: 40_000 });
      // a's requests hang from 1 000: its POST (sent at 10) stays its last success, so it loses at 10 010.
      env.scheduler.schedule(() => env.server.cut('a', 'hang'), 1000);
      env.scheduler.schedule(() => env.server.heal('a'), 10_005);
      env.scheduler.schedule(() => {
        // Without waiting, a's next term renewed the Lease at 10 030, the late release cleared it at 12 130, and b
        // took it at 12 270 while a led until its renewal met b at 14 060.
        expectNoOverlap([a, b]);
        // The release reads at 12 120 a Lease nobody wrote since a's POST, and clears it; the next term sends nothing
        // before that, then reads the free Lease and takes it again.
        expect(described(a.events).filter((e) => / (lost|released|acquired)/.test(e))).to.deep.equal([
          '20 acquired 0',
          '10010 lost renewDeadline',
          '12130 released',
          '12150 acquired 1',
        ]);
        const aAfterLoss = env.server.log.filter((s) => s.candidate === 'a' && s.at > 10_010);
        expect(aAfterLoss.map((s) => `${s.at} ${s.method}`).slice(0, 4)).to.deep.equal([
          '12120 GET',
          '12130 PUT',
          '12140 GET',
          '12150 PUT',
        ]);
        expect(b.timeline).to.deep.equal(['100 false']);
      }, 39_999);
    });
  });

  it('a new subscription makes its first request only after the previous term released the Lease', () => {
    election(({ scheduler, server }) => {
      const leading$ = leaderElection(server.transport('a'), {
        ...base,
        identity: 'a',
        scheduler,
        onEvent: () => undefined,
      });
      const first = leading$.subscribe();
      scheduler.schedule(() => {
        server.failNext('a', { delay: 3000 });
        first.unsubscribe();
        const second = leading$.subscribe();
        scheduler.schedule(() => second.unsubscribe(), 4000);
      }, 5000);
      scheduler.schedule(() => {
        // The release reads at 8 010 and writes at 8 020; only then does the new term read, and take the free Lease.
        expect(
          server.log
            .filter((s) => s.at > 5000)
            .slice(0, 4)
            .map((s) => `${s.at} ${s.method} ${s.spec?.holderIdentity ?? ''}`),
        ).to.deep.equal(['8010 GET ', '8020 PUT ', '8030 GET ', '8040 PUT a']);
      }, 9000);
    });
  });

  it('a release leaves alone a Lease written after its term\u2019s last write, even under the same identity', () => {
    election((env) => {
      const a = candidate(env, 'a', { until: 5000 });
      env.scheduler.schedule(() => env.server.failNext('a', { delay: 3000 }), 4999);
      // Another writer with the same identity (a process restarted with a stable name) renews while the read is late.
      const successor = {
        metadata: {},
        spec: {
          holderIdentity: 'a',
          leaseDurationSeconds: 15,
          acquireTime: microTime(6000),
          renewTime: microTime(6000),
          leaseTransitions: 1,
        },
      };
      env.scheduler.schedule(() => env.server.put(successor), 6000);
      env.scheduler.schedule(() => {
        expect(env.server.lease()?.spec).to.deep.equal(successor.spec);
        expect(described(a.events).filter((e) => e.includes('released'))).to.deep.equal([]);
      }, 9000);
    });
  });

  it('still releases after a renewal whose answer was lost, when the Lease holds what that renewal wrote', () => {
    election((env) => {
      const a = candidate(env, 'a', { until: 5000 });
      // The renewal sent at 4 030 lands, but its answer is lost, and the read that follows hangs until the teardown:
      // of that write, a knows only the record it sent.
      env.scheduler.schedule(() => env.server.failNext('a', 'lostAnswer', 'hang'), 4000);
      env.scheduler.schedule(() => {
        expect(env.server.writes()).to.deep.equal(['20 a a', '2030 a a', '4040 a a', '5020 a ']);
        expect(described(a.events).at(-1)).to.equal('5020 released');
      }, 9000);
    });
  });

  it('a holder whose wall clock goes back by exactly one renewal interval never writes the same renewTime twice', () => {
    election((env) => {
      // Renewals are written at 10, 2 020, 4 030 …: a step of −2 010 ms at 2 500 makes 4 030 read as 2 020.
      const a = candidate(env, 'a', { steps: [{ at: 2500, by: -2010 }], until: 9000 });
      env.scheduler.schedule(() => {
        const stamps = env.server.log.filter((s) => s.spec !== undefined).map((s) => s.spec!.renewTime);
        expect(stamps.slice(0, 4)).to.deep.equal([microTime(10), microTime(2020), microTime(2020, 1), microTime(4030)]);
        expect(new Set(stamps).size).to.equal(stamps.length);
        expect(a.timeline).to.deep.equal(['0 false', '20 true']);
      }, 8999);
    });
  });

  it('a holder whose wall clock stands still is not taken over while it renews', () => {
    election((env) => {
      // Stepped back by one renewal interval after every renewal: every renewal is stamped 10 ms by its wall clock.
      const steps = Array.from({ length: 20 }, (_, k) => ({ at: 1000 + 2010 * k, by: -2010 }));
      const a = candidate(env, 'a', { steps, until: 40_000 });
      const b = candidate(env, 'b', { at: 100, until: 40_000 });
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '20 true']);
        expect(b.timeline).to.deep.equal(['100 false']);
        expect(env.server.writes().every((w) => w.endsWith(' a a'))).to.equal(true);
        expectNoOverlap([a, b]);
      }, 39_999);
    });
  });
});
