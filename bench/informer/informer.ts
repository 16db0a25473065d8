/**
 * Informer benchmark: initial sync time, steady-state MODIFIED throughput and heap per cached object, for the
 * floor (plain HTTP + JSON.parse + Map.set), rxkube's `informer()` and client-node's `makeInformer`, side by side
 * in one run. Two steady-state workloads:
 * - paced (sections 1–3): the in-memory API server commits modifications in bursts while its watches are stalled;
 * - continuous (section 4, `continuous.ts`): a replay server streams every event in one response at full speed;
 * with `--profile`, a CPU profile of rxkube's steady state (section 5, `profile.ts`); and the scale section (6,
 * `scale.ts`): sync and steady state of a million small ConfigMaps (100,000 MODIFIED) and of the pod sizes, every
 * round, with issue 32's targets.
 *
 * Run: `npx tsx --expose-gc bench/informer/informer.ts [--pods N] [--events N] [--sizes 50000,100000]
 * [--rounds 3] [--profile] [--save-before] [--scale 1000000] [--scale-events 100000] [--scale-pods 50000,100000]
 * [--only paced,continuous,scale] [--clients rxkube,floor]` (`--clients`: which clients the paced workload runs;
 * `--scale-pods`: the pod sizes of the scale section, reused from the continuous workload when it ran them).
 * `npm run bench -- informer:scale` runs the scale section alone. Writes
 * `bench/results/informer.md` (with `--only`, a partial report goes to the temp directory instead) and prints it.
 * `--save-before` (run on a checkout of the code before a change) records the rxkube profile and the steady-state
 * ratios in `before.json`, which later runs show beside their own.
 *
 * Layout: every server runs in its own process (`server.ts`, `stream-server.ts`); each client runs alone in its own
 * process (`client.ts`), one after another, so neither CPU nor heap of one skews another's numbers.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runContinuous, type StreamSize } from './continuous.js';
import { forkScript, waitForOneWatch, type Child } from './processes.js';
import { beforeOf, renderContinuous, renderProfiles, type Before } from './report-continuous.js';
import { renderScale, runScale } from './scale.js';
import { renderReport, type ClientResult, type Mode } from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};
const flag = (name: string): boolean => process.argv.includes(`--${name}`);
const pods = Number(arg('pods') ?? 100_000);
const events = Number(arg('events') ?? pods);
const sizes = (arg('sizes') ?? '50000,100000').split(',').map(Number);
const rounds = Number(arg('rounds') ?? 3);
type Workload = 'paced' | 'continuous' | 'scale';
const only = arg('only')?.split(',') as Workload[] | undefined;
const runs = (workload: Workload): boolean => only === undefined || only.includes(workload);
const scaleCount = Number(arg('scale') ?? 1_000_000);
const scaleEvents = Number(arg('scale-events') ?? 100_000);
const scalePods = (arg('scale-pods') ?? '50000,100000').split(',').map(Number);
const beforePath = join(here, 'before.json');
/** Lines of one burst stay well under the in-memory server's 64 MiB slow-consumer limit (~3.3 KB per line). */
const burstSize = Math.min(10_000, events);
const modes = (arg('clients')?.split(',') ?? [
  'floor',
  'floor-strip',
  'rxkube',
  'rxkube-keep',
  'client-node',
]) as readonly Mode[];
const steadyModes = new Set<Mode>(['floor', 'rxkube', 'client-node']);
const PHASE_LIMIT_MS = 240_000;

type Ready = { type: 'ready'; url: string; podBytes: number; seedMs: number };

async function runClient(server: Child, url: string, mode: Mode): Promise<ClientResult> {
  const client = forkScript('client.ts', [mode, url, String(pods)]);
  try {
    const synced = await client.next<{ type: 'synced'; ms: number; cpuMs: number; heapBytes: number }>(
      'synced',
      PHASE_LIMIT_MS,
    );
    const result: ClientResult = { mode, syncMs: synced.ms, syncCpuMs: synced.cpuMs, heapBytes: synced.heapBytes };
    if (!steadyModes.has(mode)) return result;
    await waitForOneWatch(server);
    let ms = 0;
    let cpuMs = 0;
    let gcMs = 0;
    let gcBetweenMs = 0;
    for (let sent = 0; sent < events; sent += burstSize) {
      const count = Math.min(burstSize, events - sent);
      client.send({ type: 'expect', count });
      const armed = await client.next<{ type: 'armed'; gcBeforeMs: number }>('armed', 10_000);
      if (sent > 0) gcBetweenMs += armed.gcBeforeMs;
      server.send({ type: 'burst', count });
      await server.next('burst-sent', PHASE_LIMIT_MS);
      const done = await client.next<{ type: 'burst-done'; ms: number; cpuMs: number; gcMs: number }>(
        'burst-done',
        PHASE_LIMIT_MS,
      );
      ms += done.ms;
      cpuMs += done.cpuMs;
      gcMs += done.gcMs;
    }
    return { ...result, steady: { events, ms, cpuMs, gcMs, gcBetweenMs } };
  } catch (error) {
    return { mode, error: (error as Error).message };
  } finally {
    await client.stop();
  }
}

/** The paced workload against the in-memory API server: sync, heap, bursts. */
async function runPaced(): Promise<{ results: ClientResult[]; podBytes: number }> {
  const server = forkScript('server.ts', [String(pods)]);
  try {
    const ready = await server.next<Ready>('ready', PHASE_LIMIT_MS);
    console.log(
      `server: ${pods} pods (~${ready.podBytes} B JSON each) seeded in ${(ready.seedMs / 1000).toFixed(1)} s at ${ready.url}`,
    );
    const results: ClientResult[] = [];
    for (const mode of modes) {
      const result = await runClient(server, ready.url, mode);
      console.log(`${mode}: ${JSON.stringify(result)}`);
      results.push(result);
    }
    return { results, podBytes: ready.podBytes };
  } finally {
    await server.stop();
  }
}

const paced = runs('paced') ? await runPaced() : undefined;
const continuous: StreamSize[] = [];
if (runs('continuous')) {
  for (const size of sizes)
    continuous.push(await runContinuous(size, rounds, flag('profile') && size === Math.max(...sizes)));
}
const scale = runs('scale')
  ? await runScale({
      configMaps: scaleCount,
      configMapEvents: scaleEvents,
      pods: scalePods.filter((count) => !continuous.some((size) => size.count === count)),
      rounds,
    })
  : undefined;
const profiled = continuous.find((size) => size.profiles.size > 0)?.profiles;
const after = profiled?.get('rxkube');
const saving = flag('save-before');
if (saving) writeFileSync(beforePath, `${JSON.stringify(beforeOf(continuous, paced?.results, loadavg()), null, 2)}\n`);
const before = !saving && existsSync(beforePath) ? (JSON.parse(readFileSync(beforePath, 'utf8')) as Before) : undefined;

const report = [
  paced === undefined
    ? `## informer (partial run: ${only?.join(', ')} only)\n`
    : renderReport(
        {
          pods,
          events,
          burstSize,
          podBytes: paced.podBytes,
          cpus: cpus().length,
          node: process.version,
          loadAverage: loadavg(),
        },
        paced.results,
        before?.paced,
        before?.measured,
      ),
  ...(continuous.length === 0
    ? []
    : [
        ...renderContinuous(continuous, rounds, before),
        `Load average at the end of the continuous workload: ${loadavg()
          .map((x) => x.toFixed(1))
          .join(' / ')} (1 / 5 / 15 min).`,
        '',
        ...renderProfiles(before?.profile, after, profiled),
      ]),
  ...(scale === undefined
    ? []
    : renderScale(
        [...scale, ...continuous.filter((size) => scalePods.includes(size.count))].sort(
          (a, b) => Number(b.resource === 'configmaps') - Number(a.resource === 'configmaps') || a.count - b.count,
        ),
        rounds,
      )),
].join('\n');
const out =
  only === undefined ? join(here, '..', 'results', 'informer.md') : join(tmpdir(), 'rxkube-informer-partial.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${report.trimEnd()}\n`);
console.log(`\n${report}\nwritten to ${out}`);
