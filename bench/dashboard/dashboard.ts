/**
 * Server CPU per connected browser at 1,000 events/s (issue 29): the cluster-dashboard example's manager (the PodSet
 * controller and the dashboard) in a process of its own, against the in-memory API server in another, which changes
 * 1,000 Pods a second (of 1,000 Pods in 50 PodSets); browsers simulated by event-stream clients in this process.
 *
 * Per round, with the changes flowing all along, each configuration in turn: no browser; one browser reading at full
 * speed; 100 reading at full speed; one reading and 100 that stopped reading (paused sockets, the worst slow
 * browser). For each, after a warm-up, the server process's CPU time over a window, the Pod events its informer
 * delivered, and (after a full collection) its heap plus external memory. From those:
 * - the first browser's cost: CPU with one browser minus CPU with none (the views start, pictures are read and
 *   serialized), per event;
 * - each further browser's cost: (CPU with 100 minus CPU with 1) / 99, per event, per connection;
 * - each stopped browser's cost: (memory with 1 + 100 stopped minus memory with 1) / 100, and the most any of its
 *   responses held unsent, against the bound (the response's high-water mark plus one frame).
 *
 * Run: `npm run bench -- dashboard` (or `node --import tsx bench/dashboard/dashboard.ts [--rounds 3] [--window 10000]`);
 * writes `bench/results/dashboard.md`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ServerStats } from '../../examples/cluster-dashboard/server.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, window: { type: 'string', default: '10000' } },
});
const ROUNDS = Number(values.rounds);
const WINDOW_MS = Number(values.window);
const WARMUP_MS = 3000;
const STOPPED_WARMUP_MS = 30_000;
const RATE = 1000;
const MANY = 100;
const benchDir = dirname(fileURLToPath(import.meta.url));

interface Sample {
  readonly cpu: NodeJS.CpuUsage;
  readonly memory: number;
  readonly podEvents: number;
  readonly stats: ServerStats;
  readonly at: number;
}

interface Measure {
  /** Server CPU, µs per second of wall time. */
  readonly cpuPerSecond: number;
  /** Pod events the server's informer delivered per second. */
  readonly eventsPerSecond: number;
  /** Heap plus external memory after a full collection, bytes. */
  readonly memory: number;
  readonly stats: ServerStats;
  /** Frames per second each reading browser received, and their mean size. */
  readonly framesPerSecond: number;
  readonly frameBytes: number;
  /** Of the pictures offered to the stopped browsers during the window, the share not written. */
  readonly skipped: number;
}

function child(script: string, args: readonly string[]): ChildProcess {
  return fork(join(benchDir, script), args, {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

async function reply<T>(process: ChildProcess, type: string, request?: object): Promise<T> {
  const answer = new Promise<T>((resolve) => {
    const listener = (message: { type: string }) => {
      if (message.type !== type) return;
      process.off('message', listener);
      resolve(message as T);
    };
    process.on('message', listener);
  });
  if (request !== undefined) process.send(request);
  return answer;
}

/** An event-stream client: `reading` ones count the bytes they read, the others pause after the first chunk. */
interface Browser {
  bytes: number;
  readonly close: () => void;
}

async function connectBrowser(url: string, reading: boolean): Promise<Browser> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(`${url}events`, { agent: false }, resolve).on('error', reject);
  });
  const browser: Browser = { bytes: 0, close: () => response.destroy() };
  response.on('data', (chunk: Buffer) => {
    if (!reading) {
      response.pause();
      return;
    }
    browser.bytes += chunk.length;
  });
  response.on('error', () => {});
  return browser;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sample(server: ChildProcess): Promise<Sample> {
  const answer = await reply<Omit<Sample, 'at'>>(server, 'sample', { type: 'sample' });
  return { ...answer, at: performance.now() };
}

async function measure(server: ChildProcess, url: string, reading: number, stopped: number): Promise<Measure> {
  const browsers = [
    ...(await Promise.all(Array.from({ length: reading }, () => connectBrowser(url, true)))),
    ...(await Promise.all(Array.from({ length: stopped }, () => connectBrowser(url, false)))),
  ];
  // A stopped browser's kernel buffers take pictures until they are full (a send buffer grows to 4 MiB here):
  // measure it once the server has to skip.
  await sleep(stopped > 0 ? STOPPED_WARMUP_MS : WARMUP_MS);
  const readers = browsers.slice(0, reading);
  const bytesBefore = readers.reduce((n, b) => n + b.bytes, 0);
  const before = await sample(server);
  await sleep(WINDOW_MS);
  const after = await sample(server);
  const seconds = (after.at - before.at) / 1000;
  // Frames written to the reading browsers (they connected first: the server lists connections in that order).
  const written = (stats: ServerStats) =>
    stats.connections.slice(0, reading).reduce((n, connection) => n + connection.written, 0);
  const frames = written(after.stats) - written(before.stats);
  const stoppedOnes = (stats: ServerStats) => stats.connections.slice(reading);
  const sum = (stats: ServerStats, field: 'offered' | 'written') =>
    stoppedOnes(stats).reduce((n, connection) => n + connection[field], 0);
  const offeredToStopped = sum(after.stats, 'offered') - sum(before.stats, 'offered');
  const writtenToStopped = sum(after.stats, 'written') - sum(before.stats, 'written');
  const bytes = readers.reduce((n, b) => n + b.bytes, 0) - bytesBefore;
  for (const browser of browsers) browser.close();
  await sleep(1000);
  return {
    cpuPerSecond: (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / seconds,
    eventsPerSecond: (after.podEvents - before.podEvents) / seconds,
    memory: after.memory,
    stats: after.stats,
    framesPerSecond: reading === 0 ? 0 : frames / reading / seconds,
    frameBytes: frames === 0 ? 0 : bytes / frames,
    skipped: offeredToStopped === 0 ? 0 : (offeredToStopped - writtenToStopped) / offeredToStopped,
  };
}

interface Round {
  readonly none: Measure;
  readonly one: Measure;
  readonly many: Measure;
  readonly stopped: Measure;
}

const cluster = child('cluster.ts', []);
const { kubeconfig, pods, podSets } = await reply<{ kubeconfig: string; pods: number; podSets: number }>(
  cluster,
  'ready',
);
const server = child('server.ts', [kubeconfig]);
const { url } = await reply<{ url: string }>(server, 'ready');
console.log(`dashboard: ${podSets} PodSets, ${pods} Pods; page at ${url}; ${RATE} Pod changes/s; ${ROUNDS} rounds`);
cluster.send({ type: 'rate', perSecond: RATE });
await sleep(WARMUP_MS);

const rounds: Round[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const none = await measure(server, url, 0, 0);
  const one = await measure(server, url, 1, 0);
  const many = await measure(server, url, MANY, 0);
  const stopped = await measure(server, url, 1, MANY);
  rounds.push({ none, one, many, stopped });
  console.log(
    `round ${round}: CPU ms/s none ${(none.cpuPerSecond / 1000).toFixed(0)}, 1 ${(one.cpuPerSecond / 1000).toFixed(0)}, ${MANY} ${(many.cpuPerSecond / 1000).toFixed(0)}, 1 + ${MANY} stopped ${(stopped.cpuPerSecond / 1000).toFixed(0)}; events/s ${many.eventsPerSecond.toFixed(0)}`,
  );
}
cluster.send({ type: 'rate', perSecond: 0 });
server.disconnect();
cluster.disconnect();
await Promise.all([once(server, 'exit'), once(cluster, 'exit')]);

/** Per round, the figures of the table. */
const figures = rounds.map(({ none, one, many, stopped }) => {
  const events = (none.eventsPerSecond + one.eventsPerSecond + many.eventsPerSecond + stopped.eventsPerSecond) / 4;
  // The reading browser connected first: the server lists connections in the order they came.
  const slow = stopped.stats.connections.slice(1);
  const peak = Math.max(...slow.map((connection) => connection.peakBufferedBytes));
  const highWaterMark = Math.max(...slow.map((connection) => connection.highWaterMark));
  return {
    events,
    base: none.cpuPerSecond / events,
    first: (one.cpuPerSecond - none.cpuPerSecond) / events,
    each: (many.cpuPerSecond - one.cpuPerSecond) / (MANY - 1) / events,
    eachPerFrame: (many.cpuPerSecond - one.cpuPerSecond) / (MANY - 1) / Math.max(many.framesPerSecond, 1e-9),
    framesPerSecond: many.framesPerSecond,
    frameBytes: many.frameBytes,
    memoryPerStopped: (stopped.memory - one.memory) / MANY,
    peak,
    bound: highWaterMark + many.frameBytes,
    skipped: stopped.skipped,
  };
});

type Figure = keyof (typeof figures)[number];
const sorted = (key: Figure) => figures.map((figure) => figure[key]).sort((a, b) => a - b);
const best = (key: Figure, lowIsBest = true) => (lowIsBest ? sorted(key)[0]! : sorted(key).at(-1)!);
const worst = (key: Figure, lowIsBest = true) => (lowIsBest ? sorted(key).at(-1)! : sorted(key)[0]!);
const median = (key: Figure) => sorted(key)[Math.floor(figures.length / 2)]!;
const row = (label: string, key: Figure, format: (value: number) => string, lowIsBest = true) =>
  `| ${label} | ${format(best(key, lowIsBest))} | ${format(median(key))} | ${format(worst(key, lowIsBest))} |`;
const us = (value: number) => value.toFixed(value < 1 ? 3 : 1);
const kib = (value: number) => `${(value / 1024).toFixed(1)} KiB`;
const load = os
  .loadavg()
  .map((value) => value.toFixed(1))
  .join(' / ');

const markdown = [
  '## dashboard: server CPU per connected browser at 1,000 events/s (issue 29)',
  '',
  `\`npm run bench -- dashboard\` (\`bench/dashboard/dashboard.ts\`). The cluster-dashboard example's manager (the PodSet`,
  `controller, observed, and the dashboard; update interval 250 ms) in a process of its own, against the in-memory API`,
  `server in another, which changes ${RATE.toLocaleString('en')} of its ${pods.toLocaleString('en')} Pods (${podSets} PodSets) a second (an annotation; the controller`,
  "reconciles their PodSets, the views follow). Browsers are event-stream clients in the benchmark's process, reading at",
  `full speed, or paused after their first byte ("stopped"). ${ROUNDS} rounds; in each, no browser, 1, ${MANY} reading, and 1 reading`,
  `with ${MANY} stopped, each measured over ${WINDOW_MS / 1000} s after a ${WARMUP_MS / 1000} s warm-up (${STOPPED_WARMUP_MS / 1000} s with stopped browsers, until their kernel`,
  'buffers are full); server process CPU (user + system) per Pod event',
  `its informer delivered. Best, median and worst over the rounds. Node ${process.version}, ${os.cpus().length} CPUs, shared with other`,
  `work (load at the end ${load}): differences of a few µs per event are inside the noise.`,
  '',
  '| figure | best | median | worst |',
  '|---|---:|---:|---:|',
  row('Pod events delivered per second', 'events', (value) => value.toFixed(0), false),
  row('server CPU with no browser (controller, informers), µs per event', 'base', us),
  row('the first browser adds (views start, pictures read and serialized), µs per event', 'first', us),
  row(`**each further browser adds, µs per event** ((CPU with ${MANY} − with 1) ÷ ${MANY - 1})`, 'each', us),
  row('… the same per picture sent, µs', 'eachPerFrame', us),
  row('pictures per second each browser receives', 'framesPerSecond', (value) => value.toFixed(2), false),
  row('picture size', 'frameBytes', kib),
  row(
    `memory per stopped browser (heap and buffers after a full collection, ${MANY} stopped)`,
    'memoryPerStopped',
    kib,
  ),
  row("most a stopped browser's response held unsent", 'peak', kib),
  row("its bound: the response's high-water mark plus one picture", 'bound', kib),
  row(
    'share of the pictures offered to the stopped browsers (once their kernel buffers were full) that were skipped',
    'skipped',
    (value) => `${(value * 100).toFixed(1)} %`,
    false,
  ),
  '',
  `Per round, server CPU per second of wall time (no browser / 1 / ${MANY} reading / 1 reading + ${MANY} stopped):`,
  '',
  ...rounds.map(
    ({ none, one, many, stopped }, i) =>
      `- round ${i + 1}: ${[none, one, many, stopped].map((m) => (m.cpuPerSecond / 1000).toFixed(0)).join(' / ')} ms/s`,
  ),
].join('\n');

const resultsDir = join(benchDir, '..', 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'dashboard.md'), `${markdown}\n`);
console.log(`\n${markdown}`);
