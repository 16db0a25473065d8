/**
 * Watch-line splitting throughput: rxkube's `LineSplitter` against node:readline (what client-node's Watch uses)
 * over the same bytes in the same run, for typical event streams and for one huge line cut into small chunks (the
 * case where naive per-chunk concatenation goes quadratic).
 *
 * Run: `npx tsx bench/transport/lines.ts`; writes `bench/results/transport.md`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { LineSplitter } from '../../src/transport/index.js';

function eventLine(i: number): string {
  const name = `web-${i.toString(36)}-ü`;
  return JSON.stringify({
    type: 'MODIFIED',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: `team-${i % 20}`,
        resourceVersion: String(1000 + i),
        labels: { app: `app-${i % 40}` },
      },
      spec: { nodeName: `node-${i % 300}`, containers: [{ name: 'c', image: 'registry.example.com/app:v1' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
  });
}

function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

function splitter(chunks: Buffer[]): number {
  const s = new LineSplitter();
  let n = 0;
  for (const c of chunks) n += s.push(c).length;
  return n + (s.flush() === undefined ? 0 : 1);
}

async function readline(chunks: Buffer[]): Promise<number> {
  let n = 0;
  const rl = createInterface({ input: Readable.from(chunks), crlfDelay: Infinity });
  for await (const _line of rl) n += 1;
  return n;
}

async function median(run: () => number | Promise<number>, expected: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const t0 = performance.now();
    const lines = await run();
    times.push(performance.now() - t0);
    if (lines !== expected) throw new Error(`expected ${expected} lines, got ${lines}`);
  }
  return times.sort((a, b) => a - b)[2]!;
}

const events = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `${eventLine(i)}\n`).join(''), 'utf8');
const huge = Buffer.from(
  `${JSON.stringify({ type: 'ADDED', object: { data: 'x'.repeat(16 * 1024 * 1024) } })}\n`,
  'utf8',
);
const cases = [
  {
    what: `40k events (${(events.length / 2 ** 20).toFixed(1)} MiB), 16 KiB chunks`,
    chunks: chunked(events, 16 * 1024),
    lines: 40_000,
  },
  { what: `40k events, 1 KiB chunks`, chunks: chunked(events, 1024), lines: 40_000 },
  { what: `one 16 MiB line, 1 KiB chunks`, chunks: chunked(huge, 1024), lines: 1 },
];

const rows: string[] = [];
for (const c of cases) {
  const mb = c.chunks.reduce((a, b) => a + b.length, 0) / 2 ** 20;
  const ours = await median(() => splitter(c.chunks), c.lines);
  const theirs = await median(() => readline(c.chunks), c.lines);
  rows.push(
    `| ${c.what} | ${(mb / (ours / 1000)).toFixed(0)} | ${(mb / (theirs / 1000)).toFixed(0)} | ${(theirs / ours).toFixed(2)} |`,
  );
  console.log(rows.at(-1));
}

const md = [
  '## transport: watch line splitting',
  '',
  '`LineSplitter` (Buffer chunks, one concat per completed line) against node:readline over the same chunks;',
  'median of 5 runs. Script: `bench/transport/lines.ts`.',
  '',
  '| input | LineSplitter MiB/s | readline MiB/s | speed-up |',
  '|---|---:|---:|---:|',
  ...rows,
].join('\n');
const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(results, { recursive: true });
writeFileSync(join(results, 'transport.md'), `${md}\n`);
