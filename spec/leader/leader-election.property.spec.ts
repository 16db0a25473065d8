import fc from 'fast-check';
import { LEADER_JITTER_FACTOR } from '../../src/leader/index.js';
import { candidate, election, expectNoOverlap, type Candidate } from './harness.js';
import type { Fault } from './lease-server.js';
import { ScriptedLeaseServer } from './scripted-lease-server.js';
import { seeded } from '../watch/fake-transport.js';

const names: readonly string[] = ['a', 'b', 'c'];
const END = 150_000;

/** A step of one machine's wall clock, forward or back, by up to an hour; whoever holds the Lease at that moment. */
const stepArb = fc.record({
  at: fc.integer({ min: 0, max: END }),
  by: fc.oneof(
    fc.integer({ min: -3_600_000, max: -1 }),
    fc.integer({ min: 1, max: 3_600_000 }),
    fc.integer({ min: -5000, max: 5000 }),
  ),
});

/**
 * One candidate's own configuration: clock offset and wall-clock steps, timings, when it joins, how slow its link
 * is, whether it campaigns again after a loss (the manager's standby) and how late its releases are answered.
 */
const candidateArb = fc.record({
  skew: fc.integer({ min: -3_600_000, max: 3_600_000 }),
  steps: fc.array(stepArb, { maxLength: 4 }),
  at: fc.integer({ min: 0, max: 20_000 }),
  leaseSeconds: fc.integer({ min: 2, max: 20 }),
  renewShare: fc.double({ min: 0.2, max: 0.95, noNaN: true }),
  retryShare: fc.double({ min: 0.05, max: 0.8, noNaN: true }),
  latency: fc.integer({ min: 1, max: 1500 }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  standby: fc.boolean(),
  lateRelease: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }),
});

const faultArb = fc.record({
  at: fc.integer({ min: 0, max: 100_000 }),
  who: fc.constantFrom(...names),
  what: fc.oneof(
    fc.constantFrom<'heal' | 'stop' | Fault>('heal', 'stop', 'network', 'hang', 'lostAnswer', 500),
    fc.integer({ min: 1, max: 20_000 }).map((delay): Fault => ({ delay })),
  ),
});

type CandidateConfig = typeof candidateArb extends fc.Arbitrary<infer T> ? T : never;
type FaultConfig = typeof faultArb extends fc.Arbitrary<infer T> ? T : never;

/** Runs three candidates on one virtual Lease server until `END` and fails if two ever led at once. */
function neverTwoLeaders(configs: readonly CandidateConfig[], faults: readonly FaultConfig[]): void {
  const latencies = new Map(
    configs.map((c, i) => [names[i]!, { base: c.latency, random: seeded(c.seed ^ 0x5bd1e995) }]),
  );
  election(
    (env) => {
      const candidates: Candidate[] = configs.map((c, i) => {
        const leaseDuration = c.leaseSeconds * 1000;
        const renewDeadline = Math.max(1, Math.floor(leaseDuration * c.renewShare));
        const retryPeriod = Math.max(1, Math.floor((renewDeadline / LEADER_JITTER_FACTOR) * c.retryShare));
        return candidate(env, names[i]!, {
          at: c.at,
          until: END,
          skew: c.skew,
          steps: c.steps,
          standby: c.standby,
          lateRelease: c.lateRelease,
          leaseDuration,
          renewDeadline,
          retryPeriod,
          random: seeded(c.seed),
        });
      });
      for (const fault of faults) {
        env.scheduler.schedule(() => {
          const who = candidates[names.indexOf(fault.who)]!;
          if (fault.what === 'heal') env.server.heal(fault.who);
          else if (fault.what === 'stop') who.stop();
          else if (typeof fault.what === 'object') env.server.failNext(fault.who, fault.what);
          else env.server.cut(fault.who, fault.what);
        }, fault.at);
      }
      env.scheduler.schedule(() => expectNoOverlap(candidates), END + 1);
    },
    (who) => {
      const latency = latencies.get(who)!;
      return 1 + Math.floor(latency.random() * latency.base);
    },
    (scheduler, latency) => new ScriptedLeaseServer(scheduler, latency),
  );
}

describe('leaderElection properties', () => {
  it('never lets two candidates lead at once, whatever the skews, clock steps, timings, latencies, late answers and faults', () => {
    fc.assert(
      fc.property(
        fc.tuple(candidateArb, candidateArb, candidateArb),
        fc.array(faultArb, { maxLength: 12 }),
        neverTwoLeaders,
      ),
      { numRuns: 150 },
    );
  });

  it('never lets two candidates lead at once when candidates in standby lose the Lease often and their releases are answered late', () => {
    // Every candidate campaigns again after a loss and its releases are answered late; links are cut and healed
    // often, so terms end by the renew deadline and the next term races the lost term's release.
    const standbyArb = candidateArb.map((c) => ({ ...c, standby: true, lateRelease: c.lateRelease ?? 4000 }));
    const flappingArb = fc.record({
      at: fc.integer({ min: 0, max: 100_000 }),
      who: fc.constantFrom(...names),
      what: fc.constantFrom<'heal' | Fault>('heal', 'heal', 'network', 'hang'),
    });
    fc.assert(
      fc.property(
        fc.tuple(standbyArb, standbyArb, standbyArb),
        fc.array(flappingArb, { minLength: 4, maxLength: 20 }),
        neverTwoLeaders,
      ),
      { numRuns: 150 },
    );
  });
});
