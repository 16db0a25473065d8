import fc from 'fast-check';
import { LEADER_JITTER_FACTOR } from '../../src/leader/index.js';
import { candidate, election, expectNoOverlap, type Candidate } from './harness.js';
import type { Fault } from './lease-server.js';
import { seeded } from '../watch/fake-transport.js';

const names: readonly string[] = ['a', 'b', 'c'];

/** One candidate's own configuration: clock offset, timings, when it joins, how slow its link is. */
const candidateArb = fc.record({
  skew: fc.integer({ min: -3_600_000, max: 3_600_000 }),
  at: fc.integer({ min: 0, max: 20_000 }),
  leaseSeconds: fc.integer({ min: 2, max: 20 }),
  renewShare: fc.double({ min: 0.2, max: 0.95, noNaN: true }),
  retryShare: fc.double({ min: 0.05, max: 0.8, noNaN: true }),
  latency: fc.integer({ min: 1, max: 1500 }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

const faultArb = fc.record({
  at: fc.integer({ min: 0, max: 100_000 }),
  who: fc.constantFrom(...names),
  what: fc.constantFrom<'heal' | 'stop' | Fault>('heal', 'stop', 'network', 'hang', 'lostAnswer', 500),
});

describe('leaderElection properties', () => {
  it('never lets two candidates lead at once, whatever the skews, timings, latencies and faults', () => {
    fc.assert(
      fc.property(fc.tuple(candidateArb, candidateArb, candidateArb), fc.array(faultArb, { maxLength: 12 }), (configs, faults) => {
        const latencies = new Map(configs.map((c, i) => [names[i]!, { base: c.latency, random: seeded(c.seed ^ 0x5bd1e995) }]));
        election((env) => {
          const candidates: Candidate[] = configs.map((c, i) => {
            const leaseDuration = c.leaseSeconds * 1000;
            const renewDeadline = Math.max(1, Math.floor(leaseDuration * c.renewShare));
            const retryPeriod = Math.max(1, Math.floor((renewDeadline / LEADER_JITTER_FACTOR) * c.retryShare));
            return candidate(env, names[i]!, {
              at: c.at, until: 150_000, skew: c.skew, leaseDuration, renewDeadline, retryPeriod, random: seeded(c.seed),
            });
          });
          for (const fault of faults) {
            env.scheduler.schedule(() => {
              const who = candidates[names.indexOf(fault.who)]!;
              if (fault.what === 'heal') env.server.heal(fault.who);
              else if (fault.what === 'stop') who.stop();
              else env.server.cut(fault.who, fault.what);
            }, fault.at);
          }
          env.scheduler.schedule(() => expectNoOverlap(candidates), 150_001);
        }, (who) => {
          const latency = latencies.get(who)!;
          return 1 + Math.floor(latency.random() * latency.base);
        });
      }),
      { numRuns: 150 },
    );
  });
});
