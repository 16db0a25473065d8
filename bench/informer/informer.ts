/**
 * Informer benchmark: initial sync time, steady-state MODIFIED throughput and heap per cached object, for the
 * floor (plain HTTP + JSON.parse + Map.set), rxkube's `informer()` and client-node's `makeInformer`, side by side
 * in one run against the in-memory API server.
 *
 * Run: `npx tsx --expose-gc bench/informer/informer.ts [--pods N] [--events N]` (defaults 100000 and N).
 * Writes `bench/results/informer.md` and prints it.
 *
 * Layout: the server runs in its own process (`server.ts`); each client runs alone in its own process
 * (`client.ts`), one after another, so neither CPU nor heap of one skews another's numbers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forkScript, type Child } from './processes.js';
import { renderReport, type ClientResult, type Mode } from './report.js';

const arg = (name: string): number | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : Number(process.argv[index + 1]);
};
const pods = arg('pods') ?? 100_000;
const events = arg('events') ?? pods;
/** Lines of one burst stay well under the in-memory server's 64 MiB slow-consumer limit (~3.3 KB per line). */
const burstSize = Math.min(10_000, events);
const modes: readonly Mode[] = ['floor', 'floor-strip', 'rxkube', 'rxkube-keep', 'client-node'];
const steadyModes = new Set<Mode>(['floor', 'rxkube', 'client-node']);
const PHASE_LIMIT_MS = 240_000;

type Ready = { type: 'ready'; url: string; podBytes: number; seedMs: number };

async function waitForWatch(server: Child): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    server.send({ type: 'watchers' });
    const { count } = await server.next<{ type: 'watchers'; count: number }>('watchers', 10_000);
    if (count === 1) return;
    if (Date.now() > deadline) throw new Error(`expected exactly one open watch, the server has ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function runClient(server: Child, url: string, mode: Mode): Promise<ClientResult> {
  const client = forkScript('client.ts', [mode, url, String(pods)]);
  try {
    const synced = await client.next<{ type: 'synced'; ms: number; cpuMs: number; heapBytes: number }>('synced', PHASE_LIMIT_MS);
    const result: ClientResult = { mode, syncMs: synced.ms, syncCpuMs: synced.cpuMs, heapBytes: synced.heapBytes };
    if (!steadyModes.has(mode)) return result;
    await waitForWatch(server);
    let ms = 0;
    let cpuMs = 0;
    for (let sent = 0; sent < events; sent += burstSize) {
      const count = Math.min(burstSize, events - sent);
      client.send({ type: 'expect', count });
      await client.next('armed', 10_000);
      server.send({ type: 'burst', count });
      await server.next('burst-sent', PHASE_LIMIT_MS);
      const done = await client.next<{ type: 'burst-done'; ms: number; cpuMs: number }>('burst-done', PHASE_LIMIT_MS);
      ms += done.ms;
      cpuMs += done.cpuMs;
    }
    return { ...result, steady: { events, ms, cpuMs } };
  } catch (error) {
    return { mode, error: (error as Error).message };
  } finally {
    await client.stop();
  }
}

const server = forkScript('server.ts', [String(pods)]);
try {
  const ready = await server.next<Ready>('ready', PHASE_LIMIT_MS);
  console.log(`server: ${pods} pods (~${ready.podBytes} B JSON each) seeded in ${(ready.seedMs / 1000).toFixed(1)} s at ${ready.url}`);
  const results: ClientResult[] = [];
  for (const mode of modes) {
    const result = await runClient(server, ready.url, mode);
    console.log(`${mode}: ${JSON.stringify(result)}`);
    results.push(result);
  }
  const report = renderReport({ pods, events, burstSize, podBytes: ready.podBytes, cpus: cpus().length, node: process.version, loadAverage: loadavg() }, results);
  const out = join(dirname(dirname(fileURLToPath(import.meta.url))), 'results', 'informer.md');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, report);
  console.log(`\n${report}`);
} finally {
  await server.stop();
}
