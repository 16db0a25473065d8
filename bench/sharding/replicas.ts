/**
 * `npm run bench -- sharding`: the sharded manager across replica processes against the real
 * kube-apiserver (ShardedListAndWatch on), in the same run:
 *
 * 1. Throughput: 1, 3 and 5 replicas of one ConfigMap controller, each with concurrency 4, each run 20 ms of
 *    simulated work and then run again at once, so the reconcile is bound by its own time, not the API. Runs per
 *    second over a 10 s window once every range is held. Targets (issue 31): 3 replicas ≥ 2.7× one, 5 ≥ 4.5×.
 * 2. Rebalance: with 3 replicas, the time from a kill -9 of one to the last of its ranges held by a survivor, and
 *    from a fourth replica's start to a balanced assignment (every replica within one range of its fair share).
 *
 * Each configuration runs `ROUNDS` times; the table shows best / median / worst. Writes `bench/results/sharding-replicas.md`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane } from '../../src/testing/control-plane/index.js';
import type { ShardReplicaConfig } from '../../spec/e2e/support/shard-replica-config.js';
import { openRanges, startReplica, type Replica } from '../../spec/e2e/support/shard-replicas.js';

const RANGES = 16;
const KEYS = 200;
const WINDOW_MS = 10_000;
const ROUNDS = 3;
const TIMINGS = { leaseDuration: 4_000, renewDeadline: 2_500, retryPeriod: 500 } as const;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, limitMs = 90_000): Promise<number> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await sleep(20);
  }
  return Date.now();
}

/** Every range held by a live replica, and each holding its fair share (within one). */
function balanced(replicas: readonly Replica[]): boolean {
  const live = replicas.filter((r) => r.exitedAt === undefined);
  const held = live.flatMap(openRanges);
  if (new Set(held).size !== RANGES || held.length !== RANGES) return false;
  const share = RANGES / live.length;
  return live.every((r) => Math.abs(openRanges(r).length - share) < 1);
}

const runsOf = (replica: Replica): number => replica.lines.findLast((l) => l.event === 'count')?.runs ?? 0;

async function stopAll(replicas: readonly Replica[]): Promise<void> {
  for (const replica of replicas) if (replica.exitedAt === undefined) replica.child.kill('SIGKILL');
  await Promise.all(replicas.map((replica) => replica.exited));
}

async function main(): Promise<void> {
  const controlPlane = await startControlPlane();
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-shard-bench-'));
  const throughput = new Map<number, number[]>();
  const killMs: number[] = [];
  const joinMs: number[] = [];
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await controlPlane.writeKubeconfig(kubeconfig);
    const core = controlPlane.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = 'bench-shards';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    for (let i = 0; i < KEYS; i++)
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `cm-${i}` } } });
    let generation = 0;
    const config = (identity: string): ShardReplicaConfig => ({
      kubeconfig,
      namespace,
      name: `bench-${generation}`,
      identity,
      ranges: RANGES,
      workMs: 20,
      mode: 'throughput',
      concurrency: 4,
      ...TIMINGS,
    });
    for (let round = 0; round < ROUNDS; round++) {
      for (const count of [1, 3, 5]) {
        generation += 1; // fresh Leases for every configuration
        const replicas = Array.from({ length: count }, (_, i) => startReplica(config(`r${i}`)));
        try {
          await until(() => balanced(replicas), `${count} replicas to hold every range`);
          await sleep(2_000); // every range's informer listed and its keys running
          const before = replicas.reduce((sum, r) => sum + runsOf(r), 0);
          await sleep(WINDOW_MS);
          const after = replicas.reduce((sum, r) => sum + runsOf(r), 0);
          const perSecond = (after - before) / (WINDOW_MS / 1000);
          throughput.set(count, [...(throughput.get(count) ?? []), perSecond]);
          console.log(`round ${round + 1}: ${count} replica(s): ${perSecond.toFixed(0)} runs/s`);
          if (count === 3) {
            const victim = replicas[1]!;
            const killedAt = Date.now();
            victim.child.kill('SIGKILL');
            await victim.exited;
            killMs.push((await until(() => balanced(replicas), 'the survivors to hold every range')) - killedAt);
            const joinedAt = Date.now();
            replicas.push(startReplica(config('r-join')));
            joinMs.push((await until(() => balanced(replicas), 'a balanced assignment after a join')) - joinedAt);
            console.log(
              `round ${round + 1}: kill -9 → all ranges held ${killMs.at(-1)} ms; join → balanced ${joinMs.at(-1)} ms`,
            );
          }
        } finally {
          await stopAll(replicas);
        }
      }
    }
  } finally {
    await controlPlane.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  /** best / median / worst, the best the highest (`lowerIsBetter`: the lowest). */
  const spread = (values: readonly number[], digits = 0, lowerIsBetter = false): string => {
    const sorted = [...values].sort((a, b) => (lowerIsBetter ? a - b : b - a));
    return `${sorted[0]!.toFixed(digits)} / ${sorted[Math.floor(sorted.length / 2)]!.toFixed(digits)} / ${sorted.at(-1)!.toFixed(digits)}`;
  };
  const one = Math.max(...(throughput.get(1) ?? [Number.NaN]));
  const rows = [1, 3, 5].map((count) => {
    const values = throughput.get(count) ?? [];
    const ratios = values.map((v) => v / one);
    const target = count === 3 ? 2.7 : count === 5 ? 4.5 : undefined;
    const verdict =
      target === undefined
        ? ''
        : Math.max(...ratios) >= target
          ? `≥ ${target}×: **met** (best)`
          : `≥ ${target}×: **not met**`;
    return `| ${count} | ${spread(values)} | ${spread(ratios, 2)} | ${verdict} |`;
  });
  const load = loadavg()
    .map((v) => v.toFixed(1))
    .join(', ');
  const table = [
    '## sharding: replicas of one controller against kube-apiserver (issue 31)',
    '',
    '`npm run bench -- sharding` (`bench/sharding/replicas.ts`). kube-apiserver 1.36.3 with',
    `ShardedListAndWatch, started by \`startControlPlane\`; ${KEYS} ConfigMaps; ${RANGES} ranges; each replica a process`,
    '(`spec/e2e/support/shard-replica.ts`) with concurrency 4, each run 20 ms of simulated work and then again at once;',
    `Leases ${TIMINGS.leaseDuration / 1000} s / ${TIMINGS.renewDeadline / 1000} s / ${TIMINGS.retryPeriod / 1000} s. ${ROUNDS} rounds (best / median / worst);`,
    `runs per second over ${WINDOW_MS / 1000} s once every range was held. Ratios are to the best single-replica round.`,
    `Load average when the run ended: ${load}, on 2 cores shared with other work.`,
    '',
    '| replicas | runs/s | × one replica | target |',
    '|---|---|---|---|',
    ...rows,
    '',
    '| rebalance (3 replicas, 16 ranges) | ms, best / median / worst |',
    '|---|---|',
    `| kill -9 of one → every range held by the two left | ${killMs.length > 0 ? spread(killMs, 0, true) : 'n/a'} |`,
    `| a fourth replica joins → every replica within one range of its share | ${joinMs.length > 0 ? spread(joinMs, 0, true) : 'n/a'} |`,
    '',
  ].join('\n');
  const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, 'sharding-replicas.md'), table);
  console.log(table);
}

await main();
process.exit(0);
