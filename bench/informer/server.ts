/**
 * The benchmark's API server process: the in-memory server (`startTestCluster`) on 127.0.0.1, seeded
 * programmatically with realistic pods, taking orders from the parent over IPC.
 *
 * Pods go in through `cluster.seed` / `cluster.update` (the create and PUT paths without HTTP) with
 * `preserveStatus` and `preserveManagedFields`, because HTTP writes strip `managedFields` and reset pod status as
 * the real strategies do, and 100k modifications over HTTP would bottleneck on the writer, not the clients.
 * Seeding assigns fresh uids and creation timestamps and applies pod defaults, as a real create does.
 *
 * Messages in: `{ type: 'burst', count }` commits `count` MODIFIED pods in one synchronous block with the watches
 * stalled, so the lines are all buffered first and then flushed at once (the clients never wait for the writer);
 * `{ type: 'watchers' }` asks how many watches are open; `{ type: 'stop' }`. Messages out: `{ type: 'ready', url,
 * resourceVersion, podBytes, seedMs }`, `{ type: 'burst-sent' }`, `{ type: 'watchers', count }`.
 */
import { startTestCluster } from '../../src/testing/index.js';
import { makePod, modifyPod, type PodJson } from './pods.js';

const count = Number(process.argv[2] ?? '100000');
const keep = { preserveStatus: true, preserveManagedFields: true } as const;

const cluster = await startTestCluster({
  watchHistorySize: 20_000,
  namespaces: Array.from({ length: 20 }, (_, n) => `bench-${n}`),
});

const seedStarted = performance.now();
const pods: PodJson[] = [];
let podBytes = 0;
for (let i = 0; i < count; i++) {
  const pod = makePod(i);
  // The server assigns the uid; a stale one in later updates would be a 409 precondition failure.
  delete pod.metadata['uid'];
  pods.push(pod);
  if (i < 100) podBytes += JSON.stringify(pod).length;
}
const seedBatch = 5_000;
for (let i = 0; i < count; i += seedBatch) cluster.seed(pods.slice(i, i + seedBatch), keep);
const seedMs = performance.now() - seedStarted;

let generation = 0;
let cursor = 0;
process.send!({
  type: 'ready',
  url: cluster.url,
  resourceVersion: cluster.resourceVersion(),
  podBytes: Math.round(podBytes / Math.min(100, count)),
  seedMs,
});

process.on('message', (message: { type: string; count?: number }) => {
  if (message.type === 'burst') {
    // The stall timer cannot fire before this synchronous block ends, so every line is buffered, then flushed at once.
    cluster.faults.stallWatches(1);
    const batch: PodJson[] = [];
    for (let k = 0; k < message.count!; k++) {
      // Consecutive pods, so every event of a burst modifies a different cached object.
      const index = cursor;
      cursor = (cursor + 1) % pods.length;
      generation += 1;
      pods[index] = modifyPod(pods[index]!, generation);
      batch.push(pods[index]!);
    }
    cluster.update(batch, keep);
    process.send!({ type: 'burst-sent' });
  } else if (message.type === 'watchers') {
    process.send!({ type: 'watchers', count: cluster.openWatches() });
  } else if (message.type === 'stop') {
    void cluster.stop().then(() => process.exit(0));
  }
});
