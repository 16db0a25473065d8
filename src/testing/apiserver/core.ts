/**
 * The transport-agnostic server core: storage, registry, watch hub, in-process controllers, faults and the request
 * entry point, built once over a {@link ServerRuntime}. `startTestCluster` serves it over node:http,
 * `virtualCluster` in process.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { type ApiRequest, type ResponseSink, type ServerRuntime, timestamp } from './machinery/index.js';
import {
  badLines,
  type Faults,
  FaultState,
  requestLog,
  type RequestLog,
  serveRequest,
  type ServingState,
} from './serving/index.js';
import { crdController, namespaceController, ownerGarbageCollector } from './controllers/index.js';
import { ResourceRegistry } from './registry/index.js';
import { seedObjects, type SeedOptions, updateObjects } from './write-path/index.js';
import { namespaceStorageKey, ObjectStore } from './storage/index.js';
import { WatchHub } from './handlers/index.js';

/** What shapes a server core (the transport-independent part of `TestClusterOptions`). */
export interface InMemoryServerOptions {
  /** Events kept for watch resumption and list continuation (default 10000). */
  readonly watchHistorySize?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60000, like the real ~1 min). */
  readonly bookmarkIntervalMs?: number;
  /** Largest accepted request body (default 3 MiB, the real server's limit); larger is 413. */
  readonly maxBodyBytes?: number;
  /** Namespaces to create besides default, kube-system, kube-public and kube-node-lease. */
  readonly namespaces?: readonly string[];
  /** Emulate the namespace controller: deleting a namespace deletes its contents, then it (default false). */
  readonly namespaceLifecycle?: boolean;
  /** Emulate the garbage collector: ownerReference cascades for Background, Foreground and Orphan (default false). */
  readonly ownerGC?: boolean;
  /** Require `Authorization: Bearer <token>` on every request (401 otherwise). */
  readonly token?: string;
  /** Records the request log keeps before it drops the oldest (default 10000; 0 keeps none). */
  readonly requestLogSize?: number;
}

/**
 * One server core.
 *
 * # Guarantees
 * - `serve` is synchronous apart from the latency fault: the answer (or the start of a stream) is written into the
 *   sink before it returns, so an adapter decides alone when bytes reach its consumer.
 * - `seed` and `update` take the write path of `POST` and `PUT` (see `TestCluster.seed`).
 */
export interface ServerCore {
  readonly state: ServingState;
  /** Every fault; `restart` calls the adapter's hook. */
  readonly faults: Faults;
  /** What the server was asked (see {@link RequestLog}). */
  readonly requestLog: RequestLog;
  /** Serves one request into `sink`; returns the cancel function of a pending (delayed) answer. */
  serve(request: ApiRequest, sink: ResponseSink): () => void;
  seed(objects: readonly KubernetesObject[], options?: SeedOptions): string;
  update(objects: readonly KubernetesObject[], options?: SeedOptions): string;
  resourceVersion(): string;
  openWatches(): number;
}

/** What the adapter gives the core. */
export interface CoreHooks {
  /** Cuts every connection of the adapter (the `restart` fault). */
  restart(): void;
  /** `host:port` for discovery's `serverAddressByClientCIDRs`. */
  serverAddress(): string;
}

const builtinNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * Builds a server core.
 *
 * # Guarantees
 * - The default namespaces exist when it returns, created through the runtime (uids and timestamps from it).
 * - Every timer and timestamp comes from `runtime`; nothing reads the wall clock or global randomness.
 */
export function createServerCore(options: InMemoryServerOptions, runtime: ServerRuntime, hooks: CoreHooks): ServerCore {
  const store = new ObjectStore(options.watchHistorySize ?? 10000);
  const registry = new ResourceRegistry();
  const hub = new WatchHub(store, options.bookmarkIntervalMs ?? 60000, runtime);
  const state: ServingState = { store, registry, hub, runtime };
  store.listen(crdController(state));
  if (options.namespaceLifecycle === true) store.listen(namespaceController(state));
  if (options.ownerGC === true) store.listen(ownerGarbageCollector(state));
  for (const name of new Set([...builtinNamespaces, ...(options.namespaces ?? [])])) {
    store.put(namespaceStorageKey, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: runtime.uuid(),
        creationTimestamp: timestamp(runtime.now()),
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
  const faultState = new FaultState();
  const faults: Faults = {
    dropWatches: (o) => hub.dropAll(o?.mode ?? 'clean'),
    compact: (rv) => store.compact(rv),
    failNext: (o) => faultState.add(o),
    latency: (ms) => {
      faultState.latencyMs = Math.max(0, ms);
    },
    stallWatches: (ms) => hub.stall(ms),
    injectMalformedLine: (o) => hub.inject(badLines[o?.kind ?? 'malformed']),
    conflictNext: (o) => faultState.addConflict(o),
    failWrites: (o) => faultState.addWriteFailure(o),
    restart: () => hooks.restart(),
    clear: () => faultState.clear(),
  };
  const log = requestLog(options.requestLogSize);
  const config = {
    state,
    faultState,
    faults,
    token: options.token,
    maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
    requestLog: log,
    serverAddress: hooks.serverAddress,
  };
  return {
    state,
    faults,
    requestLog: log,
    serve: (request, sink) => serveRequest(config, request, sink),
    seed: (objects, seedOptions) => seedObjects(state, objects, seedOptions),
    update: (objects, seedOptions) => updateObjects(state, objects, seedOptions),
    resourceVersion: () => String(store.resourceVersion),
    openWatches: () => hub.streams.size,
  };
}
