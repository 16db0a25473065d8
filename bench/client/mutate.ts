/**
 * The cost of `mutate` (run the recipe, build the JSON Patch, send it) against the same change sent as a
 * hand-written JSON Patch through the same client, one request at a time, to the in-memory API server running in
 * its own process. Also measures patch generation alone (recipe + Immer patches + JSON Pointers) and compares it with
 * the round trip: it should cost under 10% of it.
 *
 * Run: `npm run bench -- client` (or `node --import tsx bench/client/mutate.ts`); writes `bench/results/client.md`.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { KubernetesObject } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { resourceClient } from '../../src/client/index.js';
import { recipeChanges, toJsonPatch } from '../../src/client/patch/index.js';
import type { Recipe } from '../../src/client/patch/index.js';
import { makePod } from '../apiserver/pods.js';
import { testClusterProcess } from '../support/test-cluster-process.js';

const objects = 100;
const rounds = 20;

interface Labelled extends KubernetesObject {
  metadata?: KubernetesObject['metadata'] & { labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** A ConfigMap of `keys` entries, for a large object (~40 B per entry). */
function bigConfigMap(index: number, keys: number): Labelled {
  const data: Record<string, string> = {};
  for (let k = 0; k < keys; k++) data[`key-${k}`] = `value-${index}-${k}-${'x'.repeat(16)}`;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `bench-cm-${index}`, namespace: 'default', labels: { app: 'bench' } },
    data,
  };
}

const recipe =
  (round: number): Recipe<Labelled> =>
  (draft) => {
    draft.metadata!.labels!.round = String(round);
  };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Per-call times (ms), per object and round, in this order so drift on a shared machine hits all three alike: the
 * hand-written patch, patch generation alone on the object as it then is (nothing sent), and `mutate`.
 */
async function timeRounds(
  live: Labelled[],
  handWritten: (object: Labelled, round: number) => Promise<Labelled>,
  mutate: (object: Labelled, round: number) => Promise<Labelled>,
): Promise<{ handWritten: number[]; generation: number[]; mutate: number[] }> {
  const times = { handWritten: [] as number[], generation: [] as number[], mutate: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < live.length; i++) {
      let t0 = performance.now();
      live[i] = await handWritten(live[i]!, 2 * round);
      times.handWritten.push(performance.now() - t0);
      t0 = performance.now();
      if (toJsonPatch(recipeChanges(live[i]!, recipe(2 * round + 1)).operations).length !== 1)
        throw new Error('expected one operation');
      times.generation.push(performance.now() - t0);
      t0 = performance.now();
      live[i] = await mutate(live[i]!, 2 * round + 1);
      times.mutate.push(performance.now() - t0);
    }
  }
  return times;
}

const server = await testClusterProcess();
const rows: string[] = [];
try {
  const cases: Array<{ what: string; make: (i: number) => Labelled; apiVersion: string; kind: string }> = [
    {
      what: 'Pod (~1.5 KB, managedFields)',
      make: (i) => makePod(i) as unknown as Labelled,
      apiVersion: 'v1',
      kind: 'Pod',
    },
    { what: 'ConfigMap, 1000 keys (~45 KB)', make: (i) => bigConfigMap(i, 1000), apiVersion: 'v1', kind: 'ConfigMap' },
  ];
  for (const c of cases) {
    const client = resourceClient<Labelled>(
      server.kubeConfig,
      { apiVersion: c.apiVersion, kind: c.kind },
      { namespace: 'default', fieldManager: 'bench' },
    );
    const live: Labelled[] = [];
    for (let i = 0; i < objects; i++) live.push(await firstValueFrom(client.create(c.make(i))));
    const times = await timeRounds(
      live,
      (object, round) =>
        firstValueFrom(
          client.patch(object, {
            type: 'json',
            body: [
              { op: 'test', path: '/metadata/resourceVersion', value: object.metadata!.resourceVersion },
              { op: 'add', path: '/metadata/labels/round', value: String(round) },
            ],
          }),
        ),
      (object, round) => firstValueFrom(client.mutate(object, recipe(round))),
    );
    const baseMs = median(times.handWritten);
    const mutateMs = median(times.mutate);
    const generationMs = median(times.generation);
    const row = `| ${c.what} | ${(baseMs * 1000).toFixed(0)} | ${(mutateMs * 1000).toFixed(0)} | ${(mutateMs / baseMs).toFixed(2)} | ${(generationMs * 1000).toFixed(1)} | ${((generationMs / baseMs) * 100).toFixed(1)}% |`;
    rows.push(row);
    console.log(row);
    await firstValueFrom(client.deleteCollection({ labelSelector: 'app' })).catch(() => undefined);
  }
} finally {
  server.stop();
}

const md = [
  '## client: `mutate` against a hand-written JSON Patch',
  '',
  `Command: \`npm run bench -- client\` (script \`bench/client/mutate.ts\`). The in-memory API server runs in its own`,
  `process (\`rxkube-test-cluster\`, plain HTTP on 127.0.0.1); ${objects} objects, each changed ${rounds} times by each`,
  'method, one request at a time, the methods alternating object by object. The hand-written request is the same',
  'change (`test` of the resourceVersion, then `add` of a label) sent with `client.patch`; `mutate` runs the',
  "recipe on the object, builds that patch from Immer's patches and sends it. Patch generation alone (recipe,",
  '`produceWithPatches`, equality check, JSON Pointers; nothing sent) is timed on each object just before its `mutate`.',
  'Times are medians per call; the last column is generation over the hand-written round trip.',
  `Load average at the end of the run: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores (other work shares the machine; read the ratios).`,
  '',
  '| object | hand-written JSON Patch µs | mutate µs | ratio | patch generation µs | generation / round trip |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows,
  '',
].join('\n');
writeFileSync(new URL('../results/client.md', import.meta.url), md);
console.log('\nbench/results/client.md written');
