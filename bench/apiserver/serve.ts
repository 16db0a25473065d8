/**
 * Benchmark: what the in-memory API server serves at 100k pods.
 *
 * Run: `npm run bench -- apiserver` (or `node --expose-gc --import tsx bench/apiserver/serve.ts [pods]`).
 * The load runs in a separate process (bench/apiserver/load.ts) so client and server each get a core. The floor is
 * a bare node:http server answering every GET with one pre-serialised pod, measured with the same client in the
 * same run: the ratio says how much of raw node:http throughput the server keeps. Write rows also give the server
 * process's CPU time per request, and the table the load average, since other work on the machine moves req/s.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { startTestCluster } from '../../src/testing/index.js';
import { makePod } from './pods.js';

const podCount = Number(process.argv[2] ?? 100_000);
const concurrency = 32;
const watchers = 20;
const updates = 20_000;
const loadScript = new URL('./load.ts', import.meta.url).pathname;

interface LoadResult {
  ok: number;
  failed: number;
  seconds: number;
}

function load(
  url: string,
  mode: string,
  count: number,
  parallel: number,
  extra: string[] = [],
  onWatching?: () => void,
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', loadScript, url, mode, String(count), String(parallel), ...extra],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let last = '';
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'watching') onWatching?.();
      else last = line;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(last) as LoadResult) : reject(new Error(`load ${mode} exited ${code}`)),
    );
  });
}

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

const rate = (r: LoadResult): number => Math.round(r.ok / r.seconds);
// Other work on the machine moves every figure: the load average before and after says how quiet the run was,
// and the server's own CPU time per request moves much less with it than req/s do.
const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
const loadBefore = loadAverage();

interface Measured extends LoadResult {
  /** CPU time of this (the server's) process per successful request, in µs. */
  readonly serverCpu: number;
}

async function measured(run: () => Promise<LoadResult>): Promise<Measured> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { ...result, serverCpu: (used.user + used.system) / Math.max(1, result.ok) };
}

const cpu = (r: Measured): string => `${Math.round(r.serverCpu)} µs server CPU per request`;
const rows: string[] = [];
const row = (what: string, value: string, note = ''): void => {
  rows.push(`| ${what} | ${value} | ${note} |`);
  console.log(`${what}: ${value} ${note}`);
};

// Floor: bare node:http with a fixed body of the same size as a served pod.
const floorBody = JSON.stringify({
  ...makePod(1),
  metadata: { ...makePod(1).metadata, uid: 'x', resourceVersion: '1' },
});
const floor = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(floorBody);
});
await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
const floorUrl = `http://127.0.0.1:${(floor.address() as { port: number }).port}`;
const floorGet = await load(floorUrl, 'floor', 50_000, concurrency);
await new Promise<void>((resolve) => floor.close(() => resolve()));

const heapBefore = heapUsed();
const cluster = await startTestCluster({ watchHistorySize: updates * 2 });
try {
  const created = await measured(() => load(cluster.url, 'create', podCount, concurrency));
  if (created.failed > 0) throw new Error(`${created.failed} creates failed`);
  const heapPerPod = (heapUsed() - heapBefore) / podCount;
  const get = await load(cluster.url, 'get', 50_000, concurrency);
  const list = await load(cluster.url, 'list', podCount, 1);
  const initial = await load(cluster.url, 'initial', podCount, watchers);
  // The list above built the sorted key index pagination uses: from now on every create also maintains it.
  const indexedCreates = Math.min(20_000, podCount);
  const createdAfterList = await measured(() =>
    load(cluster.url, 'create', indexedCreates, concurrency, [String(podCount)]),
  );
  const startRv = cluster.resourceVersion();
  let startUpdates!: () => void;
  const watchersReady = new Promise<void>((resolve) => (startUpdates = resolve));
  const watched = load(cluster.url, 'watch', updates, watchers, [startRv], () => startUpdates());
  await watchersReady;
  const updated = await load(cluster.url, 'update', updates, concurrency);
  const fanout = await watched;
  // Apply beside merge-patch: the same label change on the same 1000 pods, both with no watch open, merge-patch
  // first so the apply round starts from objects that already carry an Update entry.
  const mergeQuiet = await measured(() => load(cluster.url, 'update', updates, concurrency));
  const applied = await measured(() => load(cluster.url, 'apply', updates, concurrency));
  if (applied.failed > 0 || mergeQuiet.failed > 0)
    throw new Error(`${applied.failed} applies and ${mergeQuiet.failed} merge patches failed`);

  row('creates (POST, 32 concurrent)', `${rate(created)} req/s`, `${podCount} pods; ${cpu(created)}`);
  row(
    'creates after a list (POST, 32 concurrent)',
    `${rate(createdAfterList)} req/s`,
    `${indexedCreates} more pods, sorted key index maintained; ${cpu(createdAfterList)}`,
  );
  row(
    'gets (GET one pod, 32 concurrent)',
    `${rate(get)} req/s`,
    `${(rate(get) / rate(floorGet)).toFixed(2)}× the floor's ${rate(floorGet)} req/s`,
  );
  row(
    'paginated list of every pod (limit=500)',
    `${rate(list)} objects/s`,
    `${list.seconds.toFixed(2)} s for ${podCount}`,
  );
  row(
    `${watchers} concurrent initial watches (time to all ADDED)`,
    `${initial.seconds.toFixed(2)} s`,
    `${watchers} × ${podCount} objects, ${Math.round(initial.ok / initial.seconds)} events/s${initial.failed > 0 ? `; ${initial.failed} watches ended early` : ''}`,
  );
  row('merge-patch updates (32 concurrent)', `${rate(updated)} req/s`, `while ${watchers} watches stream`);
  row(
    `watch events served (${watchers} watches × ${updates} updates)`,
    `${rate(fanout)} events/s`,
    `${fanout.ok} events delivered`,
  );
  row(
    'merge-patch updates, no watch (32 concurrent)',
    `${rate(mergeQuiet)} req/s`,
    `a label on 1000 pods, managedFields tracked; ${cpu(mergeQuiet)}`,
  );
  row(
    'server-side apply (32 concurrent)',
    `${rate(applied)} req/s`,
    `the same label change, force=true; ${(rate(applied) / rate(mergeQuiet)).toFixed(2)}× merge-patch; ${cpu(applied)}`,
  );
  row('server heap per stored pod', `${Math.round(heapPerPod)} B`, 'pods of ~1.5 KB JSON with managedFields');
} finally {
  await cluster.stop();
}

const table = [
  '## In-memory API server (`bench/apiserver/serve.ts`)',
  '',
  `Command: \`npm run bench -- apiserver\`. ${podCount} pods in one namespace; load from a separate process over`,
  'keep-alive HTTP/1.1 on 127.0.0.1; floor = a bare `node:http` server answering each GET with one pre-serialised pod.',
  `Load average (1 / 5 / 15 min) at the start: ${loadBefore}; at the end: ${loadAverage()}.`,
  '',
  '| what | figure | note |',
  '|---|---|---|',
  ...rows,
].join('\n');
writeFileSync(new URL('../results/apiserver.md', import.meta.url), `${table}\n`);
console.log(`\n${table}`);
