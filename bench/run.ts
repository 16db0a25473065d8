/**
 * `npm run bench`: runs every benchmark under `bench/<area>/` in its own process, one after another, then writes
 * `BENCHMARKS.md` from the tables they left in `bench/results/`.
 *
 * Each benchmark measures rxkube against a baseline in the same run and reports ratios, because absolute timings
 * on shared two-core machines are noise. Pass area names to run a subset: `npm run bench -- store controller`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(benchDir, 'results');
const repoRoot = dirname(benchDir);

/** The benchmark scripts, in run order: `area/script` relative to `bench/`. */
const suites = [
  'transport/lines.ts',
  'store/cost-per-delta.ts',
  'controller/throughput.ts',
  'apiserver/serve.ts',
  'informer/informer.ts',
  'client/mutate.ts',
  'simulation/virtual-hour.ts',
];

const wanted = process.argv.slice(2);
mkdirSync(resultsDir, { recursive: true });
let failures = 0;
for (const suite of suites) {
  const area = suite.split('/')[0]!;
  if (wanted.length > 0 && !wanted.includes(area)) continue;
  const script = join(benchDir, suite);
  if (!existsSync(script)) {
    console.error(`bench: ${suite} is missing`);
    failures += 1;
    continue;
  }
  console.log(`\n=== bench/${suite}`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    console.error(`bench: ${suite} exited with ${run.status ?? run.signal}`);
    failures += 1;
  }
}

const sections = readdirSync(resultsDir)
  .filter((file) => file.endsWith('.md'))
  .sort()
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
