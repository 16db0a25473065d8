/**
 * The API server of the scale benchmark: the in-memory server (`startTestCluster`) on 127.0.0.1 in its own process,
 * seeded without HTTP (`cluster.seed`) with N small ConfigMaps (~300 B of JSON once the server added uid,
 * creationTimestamp and resourceVersion) over 20 namespaces.
 *
 * Usage (by `scale.ts`): `scale-server.ts <count>`. Messages out: `{ type: 'ready', url, objectBytes, seedMs }`.
 * Messages in: `{ type: 'stop' }`.
 */
import { startTestCluster } from '../../src/testing/index.js';

const count = Number(process.argv[2] ?? '1000000');
const NAMESPACES = 20;

/** The i-th ConfigMap: two labels and three short data keys. */
export function smallConfigMap(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `settings-${i.toString(36).padStart(4, '0')}`,
      namespace: `scale-${i % NAMESPACES}`,
      labels: { app: `app-${i % 40}`, tier: i % 2 ? 'web' : 'worker' },
    },
    data: { mode: 'production', replicas: String(1 + (i % 5)), endpoint: `https://svc-${i % 300}.example.com/v1` },
  };
}

const cluster = await startTestCluster({ namespaces: Array.from({ length: NAMESPACES }, (_, n) => `scale-${n}`) });
const started = performance.now();
const batch = 10_000;
for (let i = 0; i < count; i += batch) {
  cluster.seed(Array.from({ length: Math.min(batch, count - i) }, (_, k) => smallConfigMap(i + k)));
}
const seedMs = performance.now() - started;
const sample = await fetch(`${cluster.url}/api/v1/configmaps?limit=100`).then(
  (res) => res.json() as Promise<{ items: unknown[] }>,
);
const objectBytes = Math.round(
  sample.items.reduce<number>((sum, item) => sum + JSON.stringify(item).length, 0) / Math.max(1, sample.items.length),
);
process.send!({ type: 'ready', url: cluster.url, objectBytes, seedMs });

process.on('message', (message: { type: string }) => {
  if (message.type === 'stop') void cluster.stop().then(() => process.exit(0));
});
