/**
 * Renders the continuous-stream workload and the steady-state CPU profiles (before and after) for
 * `bench/results/informer.md`.
 */
import type { StreamMode, StreamRun, StreamSize } from './continuous.js';
import { renderProfile, type ProfileSummary } from './profile.js';
import type { ClientResult } from './report.js';

/** rxkube's throughput relative to the floor and to client-node (>1: rxkube is faster), on wall and on CPU time. */
export interface Ratios {
  readonly vsFloorWall: number;
  readonly vsFloorCpu: number;
  readonly vsNodeWall: number;
  readonly vsNodeCpu: number;
}

/** What a run of the code before a change recorded (`--save-before`), for later runs to show beside their own. */
export interface Before {
  readonly measured: string;
  readonly profile?: ProfileSummary;
  readonly continuous: readonly ({ readonly pods: number } & Ratios)[];
  readonly paced?: Ratios;
}

/** The ratios of one continuous size, from the best round of each client. */
function continuousRatios(size: StreamSize): Ratios {
  const wall = (mode: StreamMode) => best(size.runs.get(mode), (run) => run.ms);
  const cpu = (mode: StreamMode) => best(size.runs.get(mode), (run) => run.cpuMs);
  return {
    vsFloorWall: ratioOf(wall('floor'), wall('rxkube')) ?? Number.NaN,
    vsFloorCpu: ratioOf(cpu('floor'), cpu('rxkube')) ?? Number.NaN,
    vsNodeWall: ratioOf(wall('client-node'), wall('rxkube')) ?? Number.NaN,
    vsNodeCpu: ratioOf(cpu('client-node'), cpu('rxkube')) ?? Number.NaN,
  };
}

/** The ratios of the paced workload (rates summed over its bursts). */
export function pacedRatios(results: readonly ClientResult[]): Ratios {
  const steady = (mode: string) => results.find((r) => r.mode === mode)?.steady;
  const ratio = (mode: string, of: 'ms' | 'cpuMs') => {
    const base = steady(mode);
    const rx = steady('rxkube');
    return base === undefined || rx === undefined ? Number.NaN : base[of] / rx[of];
  };
  return {
    vsFloorWall: ratio('floor', 'ms'),
    vsFloorCpu: ratio('floor', 'cpuMs'),
    vsNodeWall: ratio('client-node', 'ms'),
    vsNodeCpu: ratio('client-node', 'cpuMs'),
  };
}

/** The record `--save-before` writes. */
export function beforeOf(
  sizes: readonly StreamSize[],
  paced: readonly ClientResult[] | undefined,
  load: readonly number[],
): Before {
  const profile = sizes.find((size) => size.profiles.has('rxkube'))?.profiles.get('rxkube');
  return {
    measured: `${new Date().toISOString().slice(0, 16)}Z, load average ${load.map((x) => x.toFixed(1)).join(' / ')}`,
    ...(profile === undefined ? {} : { profile }),
    continuous: sizes.map((size) => ({ pods: size.count, ...continuousRatios(size) })),
    ...(paced === undefined ? {} : { paced: pacedRatios(paced) }),
  };
}

/** One line comparing this run's ratios with the recorded ones before the change. */
export function renderBefore(now: Ratios, before: Ratios | undefined, when: string | undefined): string[] {
  if (before === undefined) return [];
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
  return [
    `- Before issue 14 (main at its start, the same script, measured ${when}): rxkube ${f(before.vsFloorWall)}× the floor on wall time and`,
    `  ${f(before.vsFloorCpu)}× on CPU, ${f(before.vsNodeWall)}× client-node on wall and ${f(before.vsNodeCpu)}× on CPU; now ${f(now.vsFloorWall)}×, ${f(now.vsFloorCpu)}×, ${f(now.vsNodeWall)}×, ${f(now.vsNodeCpu)}×.`,
  ];
}

const labels: Record<StreamMode, string> = {
  floor: 'floor (node:http, Buffer line splitting, JSON.parse, Map.set)',
  rxkube: 'rxkube `informer()`, `events$` and `store$` subscribed',
  'client-node': 'client-node `makeInformer`, `update` handler',
};

const verdict = (ok: boolean | undefined): string =>
  ok === undefined ? 'not measured' : ok ? '**met**' : '**not met**';
const fixed = (x: number | undefined, digits = 2): string =>
  x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits);

function best(runs: readonly StreamRun[] | undefined, pick: (run: StreamRun) => number): number | undefined {
  if (runs === undefined || runs.length === 0) return undefined;
  return Math.min(...runs.map(pick));
}

/** The continuous-stream section: one table per cache size, with the targets of issue 14. */
export function renderContinuous(sizes: readonly StreamSize[], rounds: number, before?: Before): string[] {
  const lines: string[] = [];
  lines.push('### 4. Steady state, continuous stream: N MODIFIED events at full speed in one watch response', '');
  lines.push(
    'A replay server (`bench/informer/stream-server.ts`, plain node:http in its own process) serves N realistic pods',
    'as list pages, then writes N MODIFIED events (each to a different pod) into the open watch as one continuous',
    'response, every byte serialized before the clock starts and written with socket backpressure only: the client',
    'sets the pace. Each client times its first to its last MODIFIED (wall) and its own CPU time over the stream.',
    `Best of ${rounds} interleaved rounds (floor, rxkube, client-node, floor, …), each client in a fresh process.`,
    '',
  );
  for (const size of sizes) {
    const wall = (mode: StreamMode) => best(size.runs.get(mode), (run) => run.ms);
    const cpu = (mode: StreamMode) => best(size.runs.get(mode), (run) => run.cpuMs);
    const rate = (ms: number | undefined) => (ms === undefined ? undefined : size.events / (ms / 1000));
    const n = (x: number) => x.toLocaleString('en-US');
    lines.push(
      `#### ${n(size.events)} MODIFIED into a ${n(size.count)}-object cache (${size.resource === 'pods' ? 'pods' : 'ConfigMaps'} of ~${size.objectBytes} B of JSON)`,
      '',
    );
    lines.push(
      '| client | events/s (wall) | × floor | events per client CPU-second | × floor | every round: wall ms / CPU ms / GC pauses ms |',
      '|---|---:|---:|---:|---:|---|',
    );
    for (const mode of ['floor', 'rxkube', 'client-node'] as const) {
      const all = (size.runs.get(mode) ?? [])
        .map((run) => `${run.ms.toFixed(0)} / ${run.cpuMs.toFixed(0)} / ${run.gcMs.toFixed(0)}`)
        .join(', ');
      lines.push(
        `| ${labels[mode]} | ${fixed(rate(wall(mode)), 0)} | ${fixed(ratioOf(wall('floor'), wall(mode)))} | ${fixed(rate(cpu(mode)), 0)} | ${fixed(ratioOf(cpu('floor'), cpu(mode)))} | ${all} |`,
      );
    }
    const vsFloorWall = ratioOf(wall('floor'), wall('rxkube'));
    const vsFloorCpu = ratioOf(cpu('floor'), cpu('rxkube'));
    const vsNodeWall = ratioOf(wall('client-node'), wall('rxkube'));
    const vsNodeCpu = ratioOf(cpu('client-node'), cpu('rxkube'));
    lines.push('');
    lines.push(
      `- rxkube ≥ client-node's throughput: ${verdict(at(vsNodeWall, 1))} on wall time (${fixed(vsNodeWall)}×); ${verdict(at(vsNodeCpu, 1))} on client CPU (${fixed(vsNodeCpu)}×).`,
    );
    lines.push(
      `- rxkube ≥ 0.8× the floor: ${verdict(at(vsFloorWall, 0.8))} on wall time (${fixed(vsFloorWall)}×); ${verdict(at(vsFloorCpu, 0.8))} on client CPU (${fixed(vsFloorCpu)}×).`,
    );
    lines.push(
      ...renderBefore(
        continuousRatios(size),
        before?.continuous.find((b) => b.pods === size.count),
        before?.measured,
      ),
    );
    for (const error of size.errors) lines.push(`- Failed run: ${error}`);
    lines.push('');
  }
  return lines;
}

/** Throughput of `mode` relative to `base`, from their times: base time ÷ mode time. */
function ratioOf(baseMs: number | undefined, modeMs: number | undefined): number | undefined {
  return baseMs === undefined || modeMs === undefined ? undefined : baseMs / modeMs;
}

function at(ratio: number | undefined, target: number): boolean | undefined {
  return ratio === undefined ? undefined : ratio >= target;
}

/**
 * The profile section: where rxkube's steady-state time goes, before this change and now, and, for reference, where
 * the floor's and client-node's goes (by area).
 */
export function renderProfiles(
  before: ProfileSummary | undefined,
  after: ProfileSummary | undefined,
  others?: ReadonlyMap<StreamMode, ProfileSummary>,
): string[] {
  const lines = ['### 5. Where the steady-state time goes: CPU profile of the rxkube client, by function', ''];
  lines.push(
    'The rxkube client process of the continuous workload, profiled with the V8 sampling profiler (inspector',
    '`Profiler.start` at the first byte of the stream is armed, `Profiler.stop` at the last event: the stream only, not',
    'the list; 200 µs sampling; a separate, untimed run). Self time per function; "GC (main thread)" is the',
    "collector's work on the main thread (its helper threads are not sampled). µs/event = self time ÷ events.",
    '',
  );
  if (before !== undefined) lines.push(...renderProfile(before, 'Before (main at the start of issue 14)'));
  if (after !== undefined) lines.push(...renderProfile(after, 'After (this run)'));
  if (before === undefined && after === undefined) lines.push('Not profiled in this run (`--profile`).', '');
  const references = (['floor', 'client-node'] as const).flatMap((mode) => {
    const summary = others?.get(mode);
    return summary === undefined ? [] : [[mode, summary] as const];
  });
  if (references.length > 0) {
    lines.push('For reference, the same profile of the floor and of client-node in this run, by area (µs/event):', '');
    const areas = [
      ...new Set(references.flatMap(([, summary]) => summary.areas.filter((a) => a.percent >= 1).map((a) => a.area))),
    ];
    lines.push(
      `| area | ${references.map(([mode]) => mode).join(' | ')} |`,
      `|---|${references.map(() => '---:').join('|')}|`,
    );
    for (const area of areas) {
      const cells = references.map(([, summary]) => {
        const found = summary.areas.find((a) => a.area === area);
        return found === undefined ? '–' : ((1000 * found.selfMs) / summary.events).toFixed(2);
      });
      lines.push(`| ${area} | ${cells.join(' | ')} |`);
    }
    lines.push(
      `| total sampled | ${references.map(([, summary]) => ((1000 * summary.busyMs) / summary.events).toFixed(2)).join(' | ')} |`,
      '',
    );
  }
  return lines;
}
