/**
 * The scale section of the informer benchmark: the initial sync and the steady state of a large cache, every round
 * reported, with the verdicts of issue 32's targets. The runs come from `continuous.ts` (`runStream`): a million
 * small ConfigMaps with 100,000 MODIFIED events, and realistic pods (50k and 100k from the continuous workload, or
 * 100k here when that workload did not run).
 */
import { runStream, streamModes, type StreamMode, type StreamRun, type StreamSize } from './continuous.js';

export interface ScalePlan {
  readonly configMaps: number;
  readonly configMapEvents: number;
  /** Pod cache sizes to run here (those the continuous workload did not run already). */
  readonly pods: readonly number[];
  readonly rounds: number;
}

/** Runs the ConfigMap size, then each pod size, one after another (one server at a time). */
export async function runScale(plan: ScalePlan): Promise<StreamSize[]> {
  const sizes: StreamSize[] = [];
  sizes.push(
    await runStream({
      resource: 'configmaps',
      count: plan.configMaps,
      events: plan.configMapEvents,
      rounds: plan.rounds,
      profile: false,
    }),
  );
  for (const pods of plan.pods) {
    sizes.push(await runStream({ resource: 'pods', count: pods, events: pods, rounds: plan.rounds, profile: false }));
  }
  return sizes;
}

/** Best, median and worst of a list (smaller is better). */
interface Spread {
  readonly best: number;
  readonly median: number;
  readonly worst: number;
}

function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0 || values.some((x) => !Number.isFinite(x))) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { best: sorted[0]!, median, worst: sorted.at(-1)! };
}

type Metric = (run: StreamRun) => number;
const metrics: readonly {
  readonly name: string;
  readonly unit: string;
  readonly digits: number;
  readonly of: Metric;
}[] = [
  { name: 'sync time', unit: 's', digits: 2, of: (run) => run.sync.ms / 1000 },
  { name: 'sync CPU', unit: 's', digits: 2, of: (run) => run.sync.cpuMs / 1000 },
  { name: 'heap per object', unit: 'B', digits: 0, of: (run) => run.sync.heapBytes },
  { name: 'peak RSS', unit: 'MiB', digits: 0, of: (run) => run.sync.peakRssBytes / 2 ** 20 },
  { name: 'stream time', unit: 's', digits: 2, of: (run) => run.ms / 1000 },
  { name: 'stream CPU', unit: 's', digits: 2, of: (run) => run.cpuMs / 1000 },
];

const cell = (s: Spread | undefined, digits: number): string =>
  s === undefined ? 'n/a' : `${s.best.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.worst.toFixed(digits)}`;

/** rxkube's figure ÷ `base`'s, round by round (runs of one round are paired; < 1: rxkube is ahead). */
function paired(size: StreamSize, base: StreamMode, of: Metric): Spread | undefined {
  const rx = size.runs.get('rxkube') ?? [];
  const other = size.runs.get(base) ?? [];
  const n = Math.min(rx.length, other.length);
  return spread(Array.from({ length: n }, (_, i) => of(rx[i]!) / of(other[i]!)));
}

const labels: Record<StreamMode, string> = {
  floor: 'floor (node:http, JSON.parse, Map.set)',
  rxkube: 'rxkube `informer()`',
  'client-node': 'client-node `makeInformer`',
};

const n = (x: number): string => x.toLocaleString('en-US');
const nameOf = (size: StreamSize): string =>
  `${n(size.count)} ${size.resource === 'pods' ? 'realistic pods' : 'small ConfigMaps'}`;

/** One target's verdict line: `ok` is undefined when the size was not run. */
function verdict(what: string, statistic: string, ratio: Spread | undefined, ok: (s: Spread) => boolean): string {
  const result = ratio === undefined ? 'not measured' : ok(ratio) ? '**met**' : '**not met**';
  return `- ${what}: ${result} (${statistic}; rxkube ÷ client-node best / median / worst: ${cell(ratio, 2)}).`;
}

/** The scale section of `bench/results/informer.md`, over every replay size of the run. */
export function renderScale(sizes: readonly StreamSize[], rounds: number): string[] {
  const lines = [
    '### 6. Scale: sync and steady state of a large cache, every round',
    '',
    'The replay server (`bench/informer/stream-server.ts`) serves pre-built list pages as kube-apiserver does: items',
    'without `kind` and `apiVersion`, `resourceVersion`, `continue` and `remainingItemCount` in the list metadata,',
    'pages of 500, `Content-Type: application/json`, no `Keep-Alive` hint. Each client (fresh process, 8 GiB heap',
    'limit) lists the cache, then takes the MODIFIED events at full speed in one watch response. Sync: wall and CPU',
    'time to synced; heap per object: `heapUsed` after three `gc()` passes, minus the same before the client started,',
    '÷ objects; peak RSS: `process.resourceUsage().maxRSS` at synced (i.e. during the list). Stream: wall time from the',
    `first to the last MODIFIED, and the client's CPU time over it. ${rounds} interleaved rounds (floor, rxkube,`,
    'client-node, floor, …); every cell is best / median / worst over the rounds, and the ratios pair the runs of one',
    'round.',
    '',
  ];
  for (const size of sizes) {
    lines.push(
      `#### ${nameOf(size)} (~${size.objectBytes} B of JSON each), then ${n(size.events)} MODIFIED`,
      '',
      `| client | ${metrics.map((m) => `${m.name} (${m.unit})`).join(' | ')} |`,
      `|---|${metrics.map(() => '---:').join('|')}|`,
    );
    for (const mode of streamModes) {
      const runs = size.runs.get(mode) ?? [];
      lines.push(`| ${labels[mode]} | ${metrics.map((m) => cell(spread(runs.map(m.of)), m.digits)).join(' | ')} |`);
    }
    for (const base of ['client-node', 'floor'] as const) {
      lines.push(
        `| rxkube ÷ ${base}, paired by round | ${metrics.map((m) => cell(paired(size, base, m.of), 2)).join(' | ')} |`,
      );
    }
    lines.push(
      '',
      `Load average at the end of its rounds: ${size.loadAverage.map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min).`,
    );
    for (const error of size.errors) lines.push(`- Failed run: ${error}`);
    lines.push('');
  }
  lines.push(...renderTargets(sizes), '');
  return lines;
}

/** Issue 32's targets, judged on this run. */
function renderTargets(sizes: readonly StreamSize[]): string[] {
  const find = (resource: StreamSize['resource'], count: number) =>
    sizes.find((size) => size.resource === resource && size.count === count);
  const largest = sizes
    .filter((size) => size.resource === 'configmaps')
    .reduce<StreamSize | undefined>((a, b) => (a === undefined || b.count > a.count ? b : a), undefined);
  const lines = ['#### Issue 32 targets on this run', ''];
  const m = (name: string) => metrics.find((metric) => metric.name === name)!.of;
  const everyRound = 'worst round';
  const below = (s: Spread) => s.worst < 1;
  for (const size of [largest, find('pods', 100_000)]) {
    if (size === undefined) continue;
    lines.push(
      verdict(
        `Sync of ${nameOf(size)}, time below client-node's in every round`,
        everyRound,
        paired(size, 'client-node', m('sync time')),
        below,
      ),
      verdict(
        `Sync of ${nameOf(size)}, CPU below client-node's in every round`,
        everyRound,
        paired(size, 'client-node', m('sync CPU')),
        below,
      ),
    );
  }
  if (largest !== undefined) {
    lines.push(
      verdict(
        `Heap per object at ${nameOf(largest)} ≤ client-node's`,
        everyRound,
        paired(largest, 'client-node', m('heap per object')),
        (s) => s.worst <= 1,
      ),
      verdict(
        `Peak RSS during the list of ${nameOf(largest)} ≤ client-node's`,
        everyRound,
        paired(largest, 'client-node', m('peak RSS')),
        (s) => s.worst <= 1,
      ),
    );
  }
  const pods50k = find('pods', 50_000);
  lines.push(
    verdict(
      "Heap for 50,000 realistic pods ≤ 0.6× client-node's",
      everyRound,
      pods50k && paired(pods50k, 'client-node', m('heap per object')),
      (s) => s.worst <= 0.6,
    ),
  );
  for (const size of [find('pods', 50_000), find('pods', 100_000), largest]) {
    if (size === undefined) continue;
    lines.push(
      verdict(
        `Steady state at ${nameOf(size)}, wall time ahead of client-node in every run`,
        everyRound,
        paired(size, 'client-node', m('stream time')),
        below,
      ),
      verdict(
        `Steady state at ${nameOf(size)}, CPU ahead of client-node in every run`,
        everyRound,
        paired(size, 'client-node', m('stream CPU')),
        below,
      ),
    );
  }
  lines.push(
    '- Store growth from 1k to 1M: measured by the store section (`bench/store/cost-per-delta.ts`), not here.',
  );
  return lines;
}
