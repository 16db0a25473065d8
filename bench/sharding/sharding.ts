/**
 * `npm run bench -- sharding`: what KEP-5866 sharding costs and saves a replica, measured against baselines in the
 * same run.
 *
 * 1. Hash: `sharding.fnv1a64` over UUIDs against a BigInt reference of the same function (the floor a plain
 *    implementation gives), in hashes per second.
 * 2. Cache per replica: one informer of N ConfigMaps with no shard (one replica's cache), then informers holding a
 *    third of the hash space, with the server selecting (`rxkube-test-cluster --feature-gates=ShardedListAndWatch=true`)
 *    and with the client filtering (the gate off): heap after sync, objects held, and time to sync. Server-side
 *    selection should hold about 1/3 of the heap; client-side filtering the same cache but the full transfer.
 *
 * The throughput of 3 and 5 replicas against one, and the time to rebalance after a kill -9 or a join, are
 * measured by `replicas.ts`, against the real kube-apiserver.
 *
 * Run: `npx tsx --expose-gc bench/sharding/sharding.ts [--objects 30000]`. Writes `bench/results/sharding.md` and
 * prints it. Absolute figures on a shared machine are noise; read the ratios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { firstValueFrom, filter } from 'rxjs';
import { informer, type Informer } from '../../src/informer/index.js';
import { fnv1a64, splitHashSpace, type ShardRange } from '../../src/sharding/index.js';
import { testClusterProcess } from '../support/test-cluster-process.js';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};
const OBJECTS = Number(arg('objects') ?? 30_000);
const HASHES = 1_000_000;
const NAMESPACE = 'default';

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with --expose-gc (npm run bench does)');
  collect();
  collect();
}

function referenceFnv(value: string): string {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(value)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

function hashRate(hash: (value: string) => string, uuids: readonly string[]): number {
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let sink = 0;
    const start = performance.now();
    for (const uuid of uuids) sink += hash(uuid).length;
    const seconds = (performance.now() - start) / 1000;
    if (sink === 0) throw new Error('unreachable');
    best = Math.max(best, uuids.length / seconds);
  }
  return best;
}

async function seed(kubeConfig: KubeConfig): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const payload = 'x'.repeat(512);
  const inFlight = 16;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < OBJECTS; i = next++) {
        await core.createNamespacedConfigMap({
          namespace: NAMESPACE,
          body: { metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { payload } },
        });
      }
    }),
  );
}

interface CacheRow {
  readonly variant: string;
  readonly objects: number;
  readonly heapMiB: number;
  readonly syncMs: number;
}

async function measureCache(kubeConfig: KubeConfig, variant: string, shard?: ShardRange[]): Promise<CacheRow> {
  const start = performance.now();
  let subject: Informer<V1ConfigMap> | undefined = informer<V1ConfigMap>(
    kubeConfig,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    {
      namespace: NAMESPACE,
      ...(shard !== undefined ? { shard } : {}),
      onWarning: () => undefined,
    },
  );
  const subscription = subject.events$.subscribe();
  await firstValueFrom(subject.synced$.pipe(filter(Boolean)));
  const syncMs = performance.now() - start;
  const objects = subject.current().size;
  // What the informer holds: the heap with it, less the heap once it is released. A difference against a reading
  // taken before it started also counted whatever else the process freed meanwhile (it came out negative).
  gc();
  const held = process.memoryUsage().heapUsed;
  subscription.unsubscribe();
  subject = undefined;
  gc();
  const heapMiB = (held - process.memoryUsage().heapUsed) / 2 ** 20;
  return { variant, objects, heapMiB, syncMs };
}

async function cacheRows(gate: boolean, third: ShardRange[]): Promise<CacheRow[]> {
  const cluster = await testClusterProcess(gate ? { args: ['--feature-gates=ShardedListAndWatch=true'] } : {});
  try {
    await seed(cluster.kubeConfig);
    const rows: CacheRow[] = [];
    if (gate) rows.push(await measureCache(cluster.kubeConfig, 'one replica, no shard'));
    rows.push(
      await measureCache(
        cluster.kubeConfig,
        gate ? '1/3 of the ranges, server selects' : '1/3 of the ranges, client filters (gate off)',
        third,
      ),
    );
    return rows;
  } finally {
    cluster.stop();
  }
}

const uuids = Array.from({ length: HASHES }, () => randomUUID());
const fast = hashRate(fnv1a64, uuids);
const floor = hashRate(referenceFnv, uuids.slice(0, HASHES / 10));
// Nine ranges, three per replica: the unit of work is smaller than a replica's share, as the manager will use it.
const third = splitHashSpace(9).slice(0, 3);
const rows = [...(await cacheRows(true, third)), ...(await cacheRows(false, third))];
const whole = rows[0]!;

const lines = [
  '## Sharding (KEP-5866)',
  '',
  `\`bench/sharding/sharding.ts\`, ${OBJECTS} ConfigMaps of ~0.5 KiB, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}.`,
  '',
  '| hash | hashes/s | ratio |',
  '|---|---:|---:|',
  `| \`sharding.fnv1a64\` (16-bit limbs) | ${Math.round(fast).toLocaleString('en')} | ${(fast / floor).toFixed(1)}× |`,
  `| BigInt reference | ${Math.round(floor).toLocaleString('en')} | 1.0× |`,
  '',
  '| informer | objects | heap MiB | heap vs one replica | sync ms |',
  '|---|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.variant} | ${r.objects} | ${r.heapMiB.toFixed(1)} | ${(r.heapMiB / whole.heapMiB).toFixed(2)} | ${Math.round(r.syncMs)} |`,
  ),
  '',
  'Heap: what the informer holds once synced (the heap with it, less the heap once it is released, after full GCs).',
  'Replica throughput (3 and 5 replicas against one) and rebalance times are measured by `bench/sharding/replicas.ts`',
  'against the real kube-apiserver (the section above).',
];
const report = `${lines.join('\n')}\n`;
mkdirSync(join(here, '..', 'results'), { recursive: true });
writeFileSync(join(here, '..', 'results', 'sharding.md'), report);
console.log(report);
