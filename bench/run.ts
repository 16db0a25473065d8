/**
 * `npm run bench`: runs every benchmark under `bench/<area>/` in its own process, one after another, then writes
 * `BENCHMARKS.md` from the tables they left in `bench/results/`.
 *
 * Each benchmark measures rxkube against a baseline in the same run and reports ratios, because absolute timings
 * on shared two-core machines are noise. Pass area names to run a subset: `npm run bench -- store controller`; an
 * unknown name (`npm run bench -- none`) runs nothing and only rewrites `BENCHMARKS.md` from `bench/results/`.
 * `area:part,part` runs only those parts of an area's script that takes `--only` (`npm run bench -- informer:scale`
 * runs the informer's scale section alone; its report goes to the temp directory, as any partial run's does).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(benchDir, 'results');
const repoRoot = dirname(benchDir);

/** A benchmark script (`area/script` relative to `bench/`), with the Node options and arguments it needs. */
interface Suite {
  readonly script: string;
  readonly nodeOptions?: readonly string[];
  readonly args?: readonly string[];
}

/** The benchmarks, in run order. */
const suites: readonly Suite[] = [
  { script: 'transport/lines.ts' },
  { script: 'transport/requests.ts' },
  // A million objects and their floor side by side need more than the default heap.
  { script: 'store/cost-per-delta.ts', nodeOptions: ['--max-old-space-size=12288'] },
  { script: 'controller/throughput.ts' },
  // A million keys preloaded in each row's own process, beside controller-runtime's priority queue (bench/go-priorityqueue).
  { script: 'queue/priority.ts' },
  { script: 'apiserver/serve.ts' },
  { script: 'informer/informer.ts', args: ['--profile'] },
  { script: 'client/mutate.ts' },
  { script: 'simulation/virtual-hour.ts' },
  { script: 'simulation/fault-classes.ts' },
  // 100,000 Pods on 1,000 Nodes, kept by a join view beside its floors.
  { script: 'views/join.ts' },
  // The cluster dashboard's server CPU per connected browser at 1,000 events/s.
  { script: 'dashboard/dashboard.ts' },
  // KEP-5866: the hash, and the cache of a sharded informer with the server selecting or the client filtering.
  { script: 'sharding/sharding.ts' },
  // Replica processes of the sharded manager against kube-apiserver: throughput of 1, 3 and 5, and rebalancing.
  { script: 'sharding/replicas.ts' },
];

/** Area name → the parts asked for (`area:part,part`), or undefined for the whole area. */
const wanted = new Map(
  process.argv.slice(2).map((name) => {
    const [area = name, parts] = name.split(':');
    return [area, parts] as const;
  }),
);
mkdirSync(resultsDir, { recursive: true });
let failures = 0;
for (const { script: suite, nodeOptions = [], args = [] } of suites) {
  const area = suite.split('/')[0]!;
  if (wanted.size > 0 && !wanted.has(area)) continue;
  const parts = wanted.get(area);
  const script = join(benchDir, suite);
  if (!existsSync(script)) {
    console.error(`bench: ${suite} is missing`);
    failures += 1;
    continue;
  }
  console.log(`\n=== bench/${suite}`);
  const run = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      ...nodeOptions,
      '--import',
      'tsx',
      script,
      ...args,
      ...(parts === undefined ? [] : ['--only', parts]),
    ],
    {
      cwd: repoRoot,
      stdio: 'inherit',
    },
  );
  if (run.status !== 0) {
    console.error(`bench: ${suite} exited with ${run.status ?? run.signal}`);
    failures += 1;
  }
}

/**
 * `targets.md` is written by hand (a summary of an issue's targets over several runs, which no single script sees),
 * so it leads; every other section is a script's table, in name order.
 */
const leading = 'targets.md';
const sections = readdirSync(resultsDir)
  .filter((file) => file.endsWith('.md'))
  .sort((a, b) => Number(b === leading) - Number(a === leading) || (a < b ? -1 : a > b ? 1 : 0))
  .map((file) => readFileSync(join(resultsDir, file), 'utf8').trim());
const header = [
  '# Benchmarks',
  '',
  'Produced by `npm run bench` (each section also names its own script). Figures are from one run on one machine;',
  'read the ratios against the baseline measured in the same run, not the absolute numbers.',
  '',
  `Machine of the last run: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
  '',
].join('\n');
writeFileSync(join(repoRoot, 'BENCHMARKS.md'), `${header}\n${sections.join('\n\n')}\n`);
console.log(`\nBENCHMARKS.md written from ${sections.length} section(s).`);
process.exitCode = failures > 0 ? 1 : 0;
