/**
 * The scale workload of the informer benchmark: the initial sync of a million small ConfigMaps from the in-memory
 * API server, with the heap each client keeps per object and its peak RSS during the list. rxkube, client-node and
 * the floor run one after another, each alone in its own process with an 8 GiB heap limit.
 */
import { forkScript } from './processes.js';

export type ScaleMode = 'floor' | 'rxkube' | 'client-node';
const scaleModes: readonly ScaleMode[] = ['rxkube', 'client-node', 'floor'];

export interface ScaleRun {
  readonly mode: ScaleMode;
  readonly syncMs?: number;
  readonly cpuMs?: number;
  readonly heapBytes?: number;
  readonly peakRssBytes?: number;
  readonly error?: string;
}

export interface ScaleResult {
  readonly count: number;
  readonly objectBytes: number;
  readonly seedMs: number;
  readonly runs: readonly ScaleRun[];
}

const LIMIT_MS = 900_000;
const CLIENT_HEAP = ['--max-old-space-size=8192'];

export async function runScale(count: number): Promise<ScaleResult> {
  const server = forkScript('scale-server.ts', [String(count)], ['--max-old-space-size=16384']);
  try {
    const ready = await server.next<{ type: 'ready'; url: string; objectBytes: number; seedMs: number }>(
      'ready',
      LIMIT_MS,
    );
    console.log(`scale: ${count} ConfigMaps (~${ready.objectBytes} B) seeded in ${(ready.seedMs / 1000).toFixed(1)} s`);
    const runs: ScaleRun[] = [];
    for (const mode of scaleModes) {
      const client = forkScript('client.ts', [mode, ready.url, String(count), 'configmaps'], CLIENT_HEAP);
      try {
        const synced = await client.next<{
          type: 'synced';
          ms: number;
          cpuMs: number;
          heapBytes: number;
          peakRssBytes: number;
        }>('synced', LIMIT_MS);
        runs.push({
          mode,
          syncMs: synced.ms,
          cpuMs: synced.cpuMs,
          heapBytes: synced.heapBytes,
          peakRssBytes: synced.peakRssBytes,
        });
      } catch (error) {
        runs.push({ mode, error: (error as Error).message });
      } finally {
        await client.stop();
      }
      console.log(`scale ${mode}: ${JSON.stringify(runs.at(-1))}`);
    }
    return { count, objectBytes: ready.objectBytes, seedMs: ready.seedMs, runs };
  } finally {
    await server.stop(30_000);
  }
}

const labels: Record<ScaleMode, string> = {
  rxkube: 'rxkube `informer()`',
  'client-node': 'client-node `makeInformer` (paginated list function)',
  floor: 'floor (node:http, JSON.parse, Map.set)',
};

const fixed = (x: number | undefined, digits = 2): string =>
  x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits);

/** The scale section of `bench/results/informer.md`. */
export function renderScale(result: ScaleResult): string[] {
  const by = new Map(result.runs.map((run) => [run.mode, run]));
  const node = by.get('client-node');
  const rx = by.get('rxkube');
  const heapRatio =
    rx?.heapBytes !== undefined && node?.heapBytes !== undefined ? rx.heapBytes / node.heapBytes : undefined;
  const n = result.count.toLocaleString('en-US');
  const lines = [
    `### 6. Scale: initial sync of ${n} small ConfigMaps`,
    '',
    `The in-memory API server in its own process, seeded without HTTP with ${n} ConfigMaps of ~${result.objectBytes} B of JSON`,
    `over 20 namespaces (${(result.seedMs / 1000).toFixed(0)} s to seed); each client lists them (pages of 500) until synced,`,
    'alone in its own process (8 GiB heap limit). Heap per object: `heapUsed` after three `gc()` passes, minus the',
    "same before the client started, ÷ objects. Peak RSS: the process's maximum resident set size up to synced",
    '(`process.resourceUsage().maxRSS`), i.e. during the list.',
    '',
    '| client | synced | time to synced (s) | client CPU (s) | heap per object (B) | × client-node | peak RSS during the list (MiB) |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const mode of scaleModes) {
    const run = by.get(mode);
    const ratio =
      run?.heapBytes !== undefined && node?.heapBytes !== undefined ? run.heapBytes / node.heapBytes : undefined;
    lines.push(
      `| ${labels[mode]} | ${run?.error === undefined ? 'yes' : `no: ${run.error}`} | ${fixed(run?.syncMs === undefined ? undefined : run.syncMs / 1000, 1)} | ${fixed(run?.cpuMs === undefined ? undefined : run.cpuMs / 1000, 1)} | ${fixed(run?.heapBytes, 0)} | ${fixed(ratio)} | ${fixed(run?.peakRssBytes === undefined ? undefined : run.peakRssBytes / 2 ** 20, 0)} |`,
    );
  }
  lines.push('');
  lines.push(`- The sync of ${n} objects completes: ${rx?.syncMs !== undefined ? '**met**' : '**not met**'}.`);
  lines.push(
    `- rxkube's heap per object ≤ 0.6× client-node's: ${heapRatio === undefined ? 'not measured' : heapRatio <= 0.6 ? '**met**' : '**not met**'} (${fixed(heapRatio)}×).`,
  );
  lines.push('');
  return lines;
}
