import fc from 'fast-check';
import { LEADER_JITTER_FACTOR } from '../../src/leader/index.js';
import { seeded } from '../watch/fake-transport.js';
import {
  cluster,
  expectCachesEqualServer,
  expectFairlyAssigned,
  expectNoKeyRunTwiceAtOnce,
  replica,
  WATCH_STALL_BOUND_MS,
  type Replica,
} from './harness.js';

const RANGES = 8;
const keys = Array.from({ length: 16 }, (_, i) => `ns-${i % 3}/object-${i}`);
/** Faults happen before this time; after it every link is healed and the API answers at once. */
const FAULTS_END = 60_000;

const stepArb = fc.record({
  at: fc.integer({ min: 0, max: FAULTS_END }),
  by: fc.oneof(fc.integer({ min: -3_600_000, max: 3_600_000 }), fc.integer({ min: -5000, max: 5000 })),
});

/** One replica's own machine: clock skew and wall-clock steps, link latency, its runs' durations. */
const machineArb = fc.record({
  skew: fc.integer({ min: -3_600_000, max: 3_600_000 }),
  steps: fc.array(stepArb, { maxLength: 3 }),
  latency: fc.integer({ min: 1, max: 400 }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

const timingArb = fc.record({
  leaseSeconds: fc.integer({ min: 2, max: 8 }),
  renewShare: fc.double({ min: 0.3, max: 0.9, noNaN: true }),
  retryShare: fc.double({ min: 0.1, max: 0.8, noNaN: true }),
});

/** What happens to the replicas while faults last; `who` picks among the replicas alive at that moment. */
const faultArb = fc.record({
  at: fc.integer({ min: 0, max: FAULTS_END - 1 }),
  who: fc.nat(),
  what: fc.constantFrom('join', 'leave', 'kill', 'partition-refuse', 'partition-hang', 'slow-api'),
  lasts: fc.integer({ min: 1, max: 20_000 }),
});

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const OBJECTS = 24;
const objectName = (index: number): string => `cm-${index % OBJECTS}`;

/** A change to the primary's objects while faults last: one of `OBJECTS` names, whatever its range. */
const writeArb = fc.record({
  at: fc.integer({ min: 0, max: FAULTS_END }),
  what: fc.constantFrom('create', 'update', 'delete'),
  index: fc.nat({ max: OBJECTS - 1 }),
});

type MachineConfig = typeof machineArb extends fc.Arbitrary<infer T> ? T : never;
type TimingConfig = typeof timingArb extends fc.Arbitrary<infer T> ? T : never;
type FaultConfig = typeof faultArb extends fc.Arbitrary<infer T> ? T : never;
type WriteConfig = typeof writeArb extends fc.Arbitrary<infer T> ? T : never;

const configMap = (index: number, revision: number) => ({
  ...CONFIG_MAP,
  metadata: { name: objectName(index), namespace: 'default' },
  data: { revision: String(revision) },
});

/**
 * Runs replicas of one sharded controller through joins, leaves, kill -9, partitions, slow API answers and clock
 * steps, then checks that no key ever ran on two replicas at once, and that once the faults stop every range is
 * held by exactly one live replica, fairly, within the bound of two lease durations and a few retry periods, and
 * that every live replica's primary cache then holds exactly the server's objects of its ranges, though objects were
 * created, updated and deleted throughout (with `shardSelector` served by the cluster, or filtered by each replica).
 */
function shardedReplicas(
  initial: readonly MachineConfig[],
  joiners: readonly MachineConfig[],
  timing: TimingConfig,
  faults: readonly FaultConfig[],
  writes: readonly WriteConfig[],
  serverSide: boolean,
): void {
  const leaseDuration = timing.leaseSeconds * 1000;
  const renewDeadline = Math.max(1, Math.floor(leaseDuration * timing.renewShare));
  const retryPeriod = Math.max(1, Math.floor((renewDeadline / LEADER_JITTER_FACTOR) * timing.retryShare));
  // Faults heal within `lasts`, so all of them are over by FAULTS_END + 20 s; then the replicas get the bound.
  const quiet = FAULTS_END + 20_000;
  const bound = 2 * leaseDuration + 12 * retryPeriod * (1 + LEADER_JITTER_FACTOR) + 5_000;
  cluster(
    ({ scheduler, cluster: c }) => {
      const replicas: Replica[] = [];
      let names = 0;
      const start = (config: MachineConfig): void => {
        const runTime = seeded(config.seed);
        replicas.push(
          replica(scheduler, c, `r${names++}`, {
            ranges: RANGES,
            keys,
            leaseDuration,
            renewDeadline,
            retryPeriod,
            // A renewal must be answerable within its deadline, or no Lease could be held once the faults stop.
            latency: Math.max(1, Math.min(config.latency, Math.floor((renewDeadline - retryPeriod) / 4))),
            skew: config.skew,
            steps: config.steps,
            resync: 3_000,
            runTime: () => 1 + Math.floor(runTime() * 1_000),
            random: seeded(config.seed ^ 0x5bd1e995),
            primary: CONFIG_MAP,
          }),
        );
      };
      c.seed(Array.from({ length: OBJECTS / 2 }, (_, i) => configMap(i * 2, 0)));
      let revision = 0;
      for (const write of writes) {
        scheduler.schedule(() => {
          const name = objectName(write.index);
          const exists = c.list(CONFIG_MAP, 'default').some((object) => object.metadata?.name === name);
          if (write.what === 'delete' && exists)
            c.exchange({ method: 'DELETE', path: `/api/v1/namespaces/default/configmaps/${name}` }).subscribe();
          else if (write.what === 'update' && exists) c.update([configMap(write.index, ++revision)]);
          else if (write.what === 'create' && !exists) c.seed([configMap(write.index, ++revision)]);
        }, write.at);
      }
      for (const config of initial) start(config);
      let joined = 0;
      for (const fault of faults) {
        scheduler.schedule(() => {
          const alive = replicas.filter((r) => r.alive() && r.current() !== undefined);
          // The first replica is never stopped or killed, so someone is left to hold the ranges.
          const victims = alive.filter((r) => r !== replicas[0]);
          const target = alive[fault.who % Math.max(1, alive.length)];
          switch (fault.what) {
            case 'join':
              if (alive.length < 5 && joined < joiners.length) start(joiners[joined++]!);
              break;
            case 'leave':
              if (victims.length > 0) victims[fault.who % victims.length]!.stop();
              break;
            case 'kill':
              if (victims.length > 0) victims[fault.who % victims.length]!.kill();
              break;
            case 'partition-refuse':
            case 'partition-hang':
              if (target === undefined) break;
              target.link.faults.partition({ mode: fault.what === 'partition-hang' ? 'hang' : 'refuse' });
              scheduler.schedule(() => target.link.faults.heal(), fault.lasts);
              break;
            case 'slow-api':
              c.faults.latency(Math.min(fault.lasts, renewDeadline * 2));
              scheduler.schedule(() => c.faults.latency(0), fault.lasts);
              break;
          }
        }, fault.at);
      }
      scheduler.schedule(() => {
        expectNoKeyRunTwiceAtOnce(replicas);
        expectFairlyAssigned(replicas, RANGES);
      }, quiet + bound);
      // A watch a partition left hung is only cut after its own time limit (see WATCH_STALL_BOUND_MS): the caches
      // are compared once that has passed too, and the ranges are checked again, still held fairly.
      scheduler.schedule(
        () => {
          expectNoKeyRunTwiceAtOnce(replicas);
          expectFairlyAssigned(replicas, RANGES);
          expectCachesEqualServer(replicas, c, CONFIG_MAP, RANGES);
          for (const r of replicas) r.kill();
        },
        quiet + bound + WATCH_STALL_BOUND_MS,
      );
    },
    serverSide ? { featureGates: { ShardedListAndWatch: true } } : {},
  );
}

const RUNS = Number(process.env.RUNS ?? 12);

describe('shardLeases properties', function () {
  // Each run simulates a few minutes of several replicas in virtual time: up to a few seconds on a loaded machine.
  this.timeout(Math.max(300_000, RUNS * 20_000));
  it('never runs a key on two replicas at once, assigns every range fairly once faults stop, and then caches exactly the server’s objects of the ranges each replica holds, whatever the joins, leaves, kills, partitions, latencies, clock steps and writes, with or without server-side selection', () => {
    fc.assert(
      fc.property(
        fc.array(machineArb, { minLength: 2, maxLength: 5 }),
        fc.array(machineArb, { maxLength: 2 }),
        timingArb,
        fc.array(faultArb, { maxLength: 10 }),
        fc.array(writeArb, { maxLength: 30 }),
        fc.boolean(),
        shardedReplicas,
      ),
      {
        numRuns: RUNS,
        // Found in CI: r0's watch hung by a partition that healed as cm-0 was deleted; its cache kept cm-0 when the
        // caches were compared 100 s in, before the watch's own time limit had cut it.
        examples: [
          [
            [
              { skew: 0, steps: [], latency: 146, seed: 1 },
              { skew: 0, steps: [], latency: 1, seed: 1 },
              { skew: 0, steps: [], latency: 1, seed: 1 },
            ],
            [],
            { leaseSeconds: 4, renewShare: 0.44575, retryShare: 0.799551318003365 },
            [
              { at: 26161, who: 0, what: 'kill', lasts: 1 },
              { at: 26379, who: 0, what: 'partition-refuse', lasts: 301 },
              { at: 32455, who: 0, what: 'partition-hang', lasts: 146 },
            ],
            [{ at: 32601, what: 'delete', index: 0 }],
            false,
          ],
        ],
      },
    );
  });
});
