/**
 * Renders the informer benchmark's results as `bench/results/informer.md`: three tables with ratios against the
 * floor and client-node, and whether each target is met.
 */
import { pacedRatios, renderBefore, type Ratios } from './report-continuous.js';

export type Mode = 'floor' | 'floor-strip' | 'rxkube' | 'rxkube-keep' | 'client-node';

/** What one client process measured; `error` when it failed or timed out. */
export interface ClientResult {
  readonly mode: Mode;
  readonly syncMs?: number;
  /** The client process's own CPU time (user + system) until synced. */
  readonly syncCpuMs?: number;
  readonly heapBytes?: number;
  readonly steady?: {
    readonly events: number;
    readonly ms: number;
    readonly cpuMs: number;
    /** Main-thread GC pauses inside the timed bursts, and between them (after one burst's last event, untimed). */
    readonly gcMs: number;
    readonly gcBetweenMs: number;
  };
  readonly error?: string;
}

export interface RunInfo {
  readonly pods: number;
  readonly events: number;
  readonly burstSize: number;
  readonly podBytes: number;
  readonly cpus: number;
  readonly node: string;
  /** `os.loadavg()` when the run ended: wall times on a shared machine are only as good as this is low. */
  readonly loadAverage: readonly number[];
}

const labels: Record<Mode, string> = {
  floor: 'floor (HTTP + JSON.parse + Map.set)',
  'floor-strip': 'floor, managedFields deleted',
  rxkube: 'rxkube `informer()` (managedFields stripped, default)',
  'rxkube-keep': 'rxkube `informer()`, `keepManagedFields`',
  'client-node': 'client-node `makeInformer`',
};

const fixed = (x: number | undefined, digits = 2): string =>
  x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits);
const verdict = (ok: boolean | undefined): string =>
  ok === undefined ? 'not measured' : ok ? '**met**' : '**not met**';

export function renderReport(
  info: RunInfo,
  results: readonly ClientResult[],
  before?: Ratios,
  measuredBefore?: string,
): string {
  const by = new Map(results.map((r) => [r.mode, r]));
  const sync = (m: Mode) => by.get(m)?.syncMs;
  const syncCpu = (m: Mode) => by.get(m)?.syncCpuMs;
  const cpuRate = (m: Mode) => {
    const s = by.get(m)?.steady;
    return s === undefined ? undefined : s.events / (s.cpuMs / 1000);
  };
  const rate = (m: Mode) => {
    const s = by.get(m)?.steady;
    return s === undefined ? undefined : s.events / (s.ms / 1000);
  };
  const heap = (m: Mode) => by.get(m)?.heapBytes;
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const lines: string[] = [];
  lines.push('## informer: initial sync, steady-state events, heap per cached object', '');
  lines.push(
    `${info.pods.toLocaleString('en-US')} realistic pods (~${info.podBytes} B of JSON each with managedFields: labels, annotations, owner`,
    'reference, 2 containers with env/ports/resources, status with conditions and containerStatuses, 2 managedFields',
    'entries) served by the in-memory API server over HTTP on 127.0.0.1, in its own process. Each client runs alone',
    `in its own process, one after another. ${info.cpus} CPUs, Node ${info.node}. Script: \`bench/informer/informer.ts\`.`,
    `Load average at the end of the run: ${info.loadAverage.map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min). Wall times`,
    'suffer from anything else running on the machine; the client-CPU columns (user + system time of the client',
    'process alone, GC threads included) do much less, so judge ratios by them when the load is high.',
    '',
  );

  lines.push('### 1. Initial sync (list pages of 500 + continue, until synced)', '');
  lines.push(
    '| client | time to synced (s) | pods/s | × floor | client CPU (s) | CPU × floor |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const m of ['floor', 'floor-strip', 'rxkube', 'rxkube-keep', 'client-node'] as const) {
    const ms = sync(m);
    const cpu = syncCpu(m);
    lines.push(
      `| ${labels[m]} | ${fixed(ms === undefined ? undefined : ms / 1000)} | ${fixed(ms === undefined ? undefined : info.pods / (ms / 1000), 0)} | ${fixed(ratio(ms, sync('floor')))} | ${fixed(cpu === undefined ? undefined : cpu / 1000)} | ${fixed(ratio(cpu, syncCpu('floor')))} |`,
    );
  }
  const syncRatio = ratio(sync('rxkube'), sync('floor'));
  const cpuRatio = ratio(syncCpu('rxkube'), syncCpu('floor'));
  lines.push(
    '',
    `- rxkube ≤ 1.5× floor: ${verdict(syncRatio === undefined ? undefined : syncRatio <= 1.5)} on wall time (${fixed(syncRatio)}×); ${verdict(cpuRatio === undefined ? undefined : cpuRatio <= 1.5)} on client CPU (${fixed(cpuRatio)}×).`,
  );
  lines.push(
    `- rxkube faster than client-node: ${verdict(sync('rxkube') === undefined || sync('client-node') === undefined ? undefined : sync('rxkube')! < sync('client-node')!)} on wall time (client-node takes ${fixed(ratio(sync('client-node'), sync('rxkube')))}× rxkube's time); ${verdict(syncCpu('rxkube') === undefined || syncCpu('client-node') === undefined ? undefined : syncCpu('rxkube')! < syncCpu('client-node')!)} on client CPU (${fixed(ratio(syncCpu('client-node'), syncCpu('rxkube')))}×).`,
  );
  lines.push(
    '- Wall time also includes the server producing the pages and whatever else the machine runs; client CPU',
    '  is what the client itself spent (all its threads, GC included, so it can exceed wall time).',
  );
  lines.push(
    '- "synced": floor = last page cached; rxkube = `synced$` true; client-node = `start()` resolved (its list',
    "  function paginates with limit=500 like the others; client-node's ListWatch itself would list in one response).",
    '',
  );

  lines.push(
    `### 2. Steady state: ${info.events.toLocaleString('en-US')} MODIFIED events into the ${info.pods.toLocaleString('en-US')}-object cache`,
    '',
  );
  const pct = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : (100 * a) / b;
  lines.push(
    '| client | events/s | % of floor | events per client CPU-second | % of floor | GC pauses in the bursts (ms) | GC pauses between them, untimed (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const m of ['floor', 'rxkube', 'client-node'] as const) {
    const steady = by.get(m)?.steady;
    lines.push(
      `| ${labels[m]} | ${fixed(rate(m), 0)} | ${fixed(pct(rate(m), rate('floor')), 0)} | ${fixed(cpuRate(m), 0)} | ${fixed(pct(cpuRate(m), cpuRate('floor')), 0)} | ${fixed(steady?.gcMs, 0)} | ${fixed(steady?.gcBetweenMs, 0)} |`,
    );
  }
  const rxRate = rate('rxkube');
  lines.push(
    '',
    `- rxkube ≥ 50% of floor: ${verdict(rxRate === undefined || rate('floor') === undefined ? undefined : rxRate >= 0.5 * rate('floor')!)} (${fixed(pct(rxRate, rate('floor')), 0)}%).`,
  );
  lines.push(
    `- rxkube ≥ client-node: ${verdict(rxRate === undefined || rate('client-node') === undefined ? undefined : rxRate >= rate('client-node')!)} (${fixed(pct(rxRate, rate('client-node')), 0)}% of client-node).`,
  );
  const rxCpu = cpuRate('rxkube');
  lines.push(
    `- On client CPU: rxkube ≥ 50% of floor ${verdict(rxCpu === undefined || cpuRate('floor') === undefined ? undefined : rxCpu >= 0.5 * cpuRate('floor')!)} (${fixed(pct(rxCpu, cpuRate('floor')), 0)}%); rxkube ≥ client-node ${verdict(rxCpu === undefined || cpuRate('client-node') === undefined ? undefined : rxCpu >= cpuRate('client-node')!)} (${fixed(pct(rxCpu, cpuRate('client-node')), 0)}%).`,
  );
  lines.push(...renderBefore(pacedRatios(results), before, measuredBefore));
  lines.push(
    `- Method: the server commits the modifications in bursts of ${info.burstSize.toLocaleString('en-US')} inside one synchronous block while its`,
    '  watches are stalled, then flushes them, so the writer never paces the client. Each client times each burst from',
    '  its first to its last MODIFIED event (floor: parsed and cached; rxkube: `updated` on `events$`, each carrying',
    '  its immutable store snapshot; client-node: `update` handler calls); the rate is total events / summed burst time.',
    '',
  );

  lines.push('### 3. Heap per cached object after sync', '');
  lines.push('| client | bytes/object | × floor (managedFields deleted) | × client-node |', '|---|---:|---:|---:|');
  for (const m of ['floor', 'floor-strip', 'rxkube', 'rxkube-keep', 'client-node'] as const) {
    const h = heap(m);
    lines.push(
      `| ${labels[m]} | ${fixed(h, 0)} | ${fixed(ratio(h, heap('floor-strip')))} | ${fixed(ratio(h, heap('client-node')))} |`,
    );
  }
  const heapRatio = ratio(heap('rxkube'), heap('floor-strip'));
  lines.push(
    '',
    `- rxkube below client-node: ${verdict(heap('rxkube') === undefined || heap('client-node') === undefined ? undefined : heap('rxkube')! < heap('client-node')!)}.`,
  );
  lines.push(
    `- rxkube (stripping on) within 1.2× of the floor with managedFields deleted too: ${verdict(heapRatio === undefined ? undefined : heapRatio <= 1.2)} (${fixed(heapRatio)}×).`,
  );
  lines.push(
    '- Measured as `process.memoryUsage().heapUsed` after `global.gc()` (three passes), minus the same before the',
    '  client started, divided by the number of pods; it includes everything the client keeps (store indexes, caches).',
  );

  const failed = results.filter((r) => r.error !== undefined);
  if (failed.length > 0) {
    lines.push('', '### Failures', '');
    for (const r of failed) lines.push(`- ${labels[r.mode]}: ${r.error}`);
  }
  return `${lines.join('\n')}\n`;
}
