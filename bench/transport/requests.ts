/**
 * Request round trips over HTTPS: rxkube's transport against client-node's generated API (undici) and
 * two node:https floors, one that keeps its connection open and one that opens a connection per request (what
 * rxkube's transport did before it pooled connections). The in-memory API server runs in its own process with TLS;
 * each contender sends one request at a time (GET of a ConfigMap, then a merge PATCH of its label), the contenders
 * interleaved round by round so that drift on a shared machine hits all alike.
 *
 * Run: `npm run bench -- transport` (or `node --import tsx bench/transport/requests.ts`); writes
 * `bench/results/transport-requests.md`.
 */
import type http from 'node:http';
import https from 'node:https';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { lastValueFrom } from 'rxjs';
import { kubeTransport } from '../../src/transport/index.js';
import { testClusterProcess } from '../support/test-cluster-process.js';

const REQUESTS = 400;
const ROUNDS = 5;
const NAMESPACE = 'default';
const NAME = 'bench-requests';
const path = `/api/v1/namespaces/${NAMESPACE}/configmaps/${NAME}`;
const patchBody = (i: number): string => JSON.stringify({ metadata: { labels: { round: String(i) } } });

/** One contender: a GET and a PATCH of the ConfigMap, each resolving once the answer's body is decoded. */
interface Contender {
  readonly label: string;
  get(): Promise<unknown>;
  patch(i: number): Promise<unknown>;
}

/** node:https with KubeConfig's TLS and auth applied by client-node, the body read and parsed, over `agent`. */
async function nodeHttps(kc: KubeConfig, method: string, agent: https.Agent | false, body?: string): Promise<unknown> {
  const server = kc.getCurrentCluster()!.server;
  const options: https.RequestOptions = { method, headers: {} };
  await kc.applyToHTTPSOptions(options);
  options.agent = agent;
  options.headers = {
    ...options.headers,
    Accept: 'application/json',
    ...(body === undefined ? {} : { 'Content-Type': 'application/merge-patch+json' }),
  };
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(server + path), options, (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function contenders(kc: KubeConfig): Contender[] {
  const transport = kubeTransport(kc);
  const api = kc.makeApiClient(CoreV1Api);
  const keepAlive = new https.Agent({ keepAlive: true });
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return [
    {
      label: 'rxkube `kubeTransport` (pooled connections)',
      get: () => lastValueFrom(transport.get(path, {})),
      patch: (i) =>
        lastValueFrom(
          transport.request({ method: 'PATCH', path, body: patchBody(i), contentType: 'application/merge-patch+json' }),
        ),
    },
    {
      label: 'client-node `CoreV1Api` (undici; a new dispatcher, so a new connection, per request)',
      get: () => api.readNamespacedConfigMap({ name: NAME, namespace: NAMESPACE }),
      patch: (i) =>
        api.patchNamespacedConfigMap(
          { name: NAME, namespace: NAMESPACE, body: JSON.parse(patchBody(i)) as object },
          mergePatch,
        ),
    },
    {
      label: 'floor: node:https, keep-alive agent, JSON.parse',
      get: () => nodeHttps(kc, 'GET', keepAlive),
      patch: (i) => nodeHttps(kc, 'PATCH', keepAlive, patchBody(i)),
    },
    {
      label: 'floor: node:https, a new connection per request',
      get: () => nodeHttps(kc, 'GET', false),
      patch: (i) => nodeHttps(kc, 'PATCH', false, patchBody(i)),
    },
  ];
}

interface Sample {
  readonly wallUs: number;
  readonly cpuUs: number;
}

/** µs of wall time and of this process's CPU per request, for `REQUESTS` requests sent one at a time. */
async function timed(send: (i: number) => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < REQUESTS; i++) await send(i);
  const wallUs = ((performance.now() - start) * 1000) / REQUESTS;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: (used.user + used.system) / REQUESTS };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = await testClusterProcess({ tls: true });
let md: string;
try {
  const kc = server.kubeConfig;
  await lastValueFrom(
    kubeTransport(kc).request({
      method: 'POST',
      path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
      body: { metadata: { name: NAME, labels: { round: '0' } }, data: { key: 'value' } },
    }),
  );
  const all = contenders(kc);
  // One warm-up round per contender (JIT, first connections), then interleaved rounds.
  for (const c of all) {
    await timed(() => c.get());
    await timed((i) => c.patch(i));
  }
  const samples = all.map(() => ({ get: [] as Sample[], patch: [] as Sample[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, c] of all.entries()) {
      samples[k]!.get.push(await timed(() => c.get()));
      samples[k]!.patch.push(await timed((i) => c.patch(i)));
    }
  }
  const medians = samples.map((s) => ({
    get: { wall: median(s.get.map((x) => x.wallUs)), cpu: median(s.get.map((x) => x.cpuUs)) },
    patch: { wall: median(s.patch.map((x) => x.wallUs)), cpu: median(s.patch.map((x) => x.cpuUs)) },
  }));
  const floor = medians[2]!;
  const rx = medians[0]!;
  const node = medians[1]!;
  const fmt = (x: number): string => x.toFixed(0);
  const ratio = (x: number): string => `${x.toFixed(2)}×`;
  md = [
    '## transport: request round trips over HTTPS',
    '',
    '`npm run bench -- transport` (script `bench/transport/requests.ts`). The in-memory API server in its own process',
    `(\`rxkube-test-cluster --tls\`, 127.0.0.1); ${REQUESTS} requests per contender and round, one at a time, ${ROUNDS} interleaved`,
    'rounds after a warm-up; medians over the rounds. Wall µs is the round trip (server included); client CPU µs is the',
    `benchmark process's own CPU per request. Load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')}.`,
    '',
    '| client | GET wall µs | GET client CPU µs | PATCH wall µs | PATCH client CPU µs | GET wall × keep-alive floor |',
    '|---|---:|---:|---:|---:|---:|',
    ...all.map((c, k) => {
      const m = medians[k]!;
      return `| ${c.label} | ${fmt(m.get.wall)} | ${fmt(m.get.cpu)} | ${fmt(m.patch.wall)} | ${fmt(m.patch.cpu)} | ${ratio(m.get.wall / floor.get.wall)} |`;
    }),
    '',
    `- rxkube against client-node: GET ${ratio(node.get.wall / rx.get.wall)} faster on wall time, ${ratio(node.get.cpu / rx.get.cpu)} on client CPU;`,
    `  PATCH ${ratio(node.patch.wall / rx.patch.wall)} and ${ratio(node.patch.cpu / rx.patch.cpu)} (above 1 means rxkube is faster).`,
    `- A connection per request costs ${fmt(medians[3]!.get.wall - floor.get.wall)} µs of wall time and ${fmt(medians[3]!.get.cpu - floor.get.cpu)} µs of client CPU per GET`,
    '  over a kept connection (the TCP and TLS handshakes), on loopback; a real network adds its round trips.',
  ].join('\n');
} finally {
  server.stop();
}
writeFileSync(new URL('../results/transport-requests.md', import.meta.url), `${md}\n`);
console.log(md);
