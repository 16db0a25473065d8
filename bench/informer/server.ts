/**
 * The benchmark's API server process: the in-memory server on 127.0.0.1, seeded programmatically with realistic
 * pods, taking orders from the parent over IPC.
 *
 * Why not `startTestCluster()`: it does not expose its object store, and every HTTP write strips `managedFields` and
 * resets pod status (as the real strategies do), so neither realistic pods nor 100k modifications at a rate that
 * does not bottleneck the clients can be produced through it. This file assembles the same parts the cluster does,
 * minus TLS, auth and the CRD/namespace controllers.
 *
 * Messages in: `{ type: 'burst', count }` commits `count` MODIFIED pods in one synchronous block with the watches
 * stalled, so the lines are all buffered first and then flushed at once (the clients never wait for the writer);
 * `{ type: 'watchers' }` asks how many watches are open; `{ type: 'stop' }`. Messages out: `{ type: 'ready', url,
 * resourceVersion, podBytes, seedMs }`, `{ type: 'burst-sent' }`, `{ type: 'watchers', count }`.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { FaultState, badLines, type Faults } from '../../src/testing/apiserver/faults.js';
import { ResourceRegistry } from '../../src/testing/apiserver/registry.js';
import { createHandler } from '../../src/testing/apiserver/server.js';
import { namespaceStorageKey, type ServerState } from '../../src/testing/apiserver/state.js';
import { ObjectStore } from '../../src/testing/apiserver/store.js';
import { WatchHub } from '../../src/testing/apiserver/watch.js';
import type { KubeObject } from '../../src/testing/apiserver/object.js';
import { makePod, modifyPod, type PodJson } from './pods.js';

const PODS = '/pods';
const count = Number(process.argv[2] ?? '100000');

const store = new ObjectStore(20_000);
const hub = new WatchHub(store, 60_000);
const state: ServerState = { store, registry: new ResourceRegistry(), hub };
const faultState = new FaultState();
const faults: Faults = {
  dropWatches: (o) => hub.dropAll(o?.mode ?? 'clean'),
  compact: (rv) => store.compact(rv),
  failNext: (o) => faultState.add(o),
  latency: (ms) => {
    faultState.latencyMs = ms;
  },
  stallWatches: (ms) => hub.stall(ms),
  injectMalformedLine: (o) => hub.inject(badLines[o?.kind ?? 'malformed']),
  restart: () => undefined,
  clear: () => faultState.clear(),
};

for (let n = 0; n < 20; n++) {
  store.put(namespaceStorageKey, {
    apiVersion: 'v1', kind: 'Namespace', metadata: { name: `bench-${n}`, uid: randomUUID() }, spec: {}, status: { phase: 'Active' },
  } as unknown as KubeObject);
}
const seedStarted = performance.now();
const pods: PodJson[] = [];
let podBytes = 0;
for (let i = 0; i < count; i++) {
  const pod = makePod(i);
  pods.push(pod);
  if (i < 100) podBytes += JSON.stringify(pod).length;
  store.put(PODS, pod as unknown as KubeObject);
}

const server = http.createServer(createHandler({
  state, faultState, faults, token: undefined, maxBodyBytes: 3 * 1024 * 1024, serverAddress: () => address,
}));
server.keepAliveTimeout = 5000;
let address = '127.0.0.1:0';
let generation = 0;
let cursor = 0;

server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as { port: number }).port;
  address = `127.0.0.1:${port}`;
  process.send!({ type: 'ready', url: `http://${address}`, resourceVersion: String(store.resourceVersion), podBytes: Math.round(podBytes / Math.min(100, count)), seedMs: performance.now() - seedStarted });
});

process.on('message', (message: { type: string; count?: number }) => {
  if (message.type === 'burst') {
    // The stall timer cannot fire before this synchronous loop ends, so every line is buffered, then flushed at once.
    hub.stall(1);
    for (let k = 0; k < message.count!; k++) {
      // Consecutive pods, so every event of a burst modifies a different cached object.
      const index = cursor;
      cursor = (cursor + 1) % pods.length;
      generation += 1;
      pods[index] = modifyPod(pods[index]!, generation);
      store.put(PODS, pods[index] as unknown as KubeObject);
    }
    process.send!({ type: 'burst-sent' });
  } else if (message.type === 'watchers') {
    process.send!({ type: 'watchers', count: hub.streams.size });
  } else if (message.type === 'stop') {
    hub.dropAll('abrupt');
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
