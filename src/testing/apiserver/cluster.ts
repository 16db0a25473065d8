/**
 * `startTestCluster()`: the in-memory kube-apiserver on a real 127.0.0.1 socket, with a matching KubeConfig.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { KubernetesObject } from '@kubernetes/client-node';
import { createCertificateAuthority, issueCertificate } from '../pki/index.js';
import type { ClusterHandle } from '../cluster.js';
import { buildKubeConfig, writeKubeConfigFile } from '../kubeconfig.js';
import { badLines, FaultState, type Faults } from './faults.js';
import { ownerGarbageCollector } from './gc.js';
import { crdController, namespaceController } from './lifecycle.js';
import { timestamp } from './object.js';
import { ResourceRegistry } from './registry.js';
import { seedObjects, updateObjects, type SeedOptions } from './seed.js';
import { createHandler } from './server.js';
import { namespaceStorageKey, type ServerState } from './state.js';
import { ObjectStore } from './store.js';
import { WatchHub } from './watch.js';
import { randomUUID } from 'node:crypto';

/** Options of {@link startTestCluster}. */
export interface TestClusterOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Serve HTTPS with an in-process CA and serving certificate for 127.0.0.1/localhost (default false). */
  readonly tls?: boolean;
  /** Require `Authorization: Bearer <token>` on every request (401 otherwise). */
  readonly token?: string;
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
}

/**
 * A running in-memory cluster.
 *
 * # Guarantees
 * - `kubeConfig` carries the server URL, the CA (with `tls`) and the token, so client-node's TLS and auth paths run
 *   exactly as against a real cluster.
 * - `stop()` closes every connection (watches included) and the listener; it is idempotent.
 */
export interface TestCluster extends ClusterHandle {
  /** Fault injection; also reachable at `POST /__rxkube/faults/<name>`. */
  readonly faults: Faults;
  /** The latest committed resourceVersion. */
  resourceVersion(): string;
  /** The CA certificate (PEM) clients must trust, when `tls` is on. */
  readonly caCertPem: string | undefined;
  /**
   * Creates `objects` without HTTP, for loading many objects fast; returns the resourceVersion after.
   *
   * # Guarantees
   * - Same write path as `POST`: defaults, uid, creationTimestamp, generation, validation, namespace existence,
   *   uniqueness; each object gets its own resourceVersion and ADDED watch event, in array order.
   * - All or nothing: if any object is rejected, none is stored and a {@link SeedError} carrying the Status an
   *   HTTP create would get is thrown.
   * - The caller's objects are copied, never retained or mutated.
   *
   * # Caveats
   * - Namespaced objects without `metadata.namespace` go to `default`. `status` and `managedFields` are reset as
   *   over HTTP unless {@link SeedOptions} say to keep them as given.
   */
  seed(objects: readonly KubernetesObject[], options?: SeedOptions): string;
  /**
   * Replaces existing objects without HTTP, as a `PUT` of each would; returns the resourceVersion after.
   *
   * # Guarantees
   * - Same checks as `PUT` (404 when absent, 409 on a stale `metadata.resourceVersion`, validation); one MODIFIED
   *   event per changed object, none for an unchanged one.
   *
   * # Caveats
   * - Applied in order and not atomic: on a {@link SeedError} the objects before `index` are already written.
   * - Without `preserveStatus` the stored status is kept, as a PUT to the main resource does.
   */
  update(objects: readonly KubernetesObject[], options?: SeedOptions): string;
  /** How many watch responses are open right now (benchmarks wait on this before they start writing). */
  openWatches(): number;
}

const builtinNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * Starts an in-memory Kubernetes API server on 127.0.0.1.
 *
 * # Guarantees
 * - Resolves once the socket is listening; default namespaces exist at that point.
 *
 * # Caveats
 * - See `docs/in-memory-server.md` for every known difference from kube-apiserver.
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const store = new ObjectStore(options.watchHistorySize ?? 10000);
  const registry = new ResourceRegistry();
  const hub = new WatchHub(store, options.bookmarkIntervalMs ?? 60000);
  const state: ServerState = { store, registry, hub };
  store.listen(crdController(state));
  if (options.namespaceLifecycle === true) store.listen(namespaceController(state));
  if (options.ownerGC === true) store.listen(ownerGarbageCollector(state));
  for (const name of new Set([...builtinNamespaces, ...(options.namespaces ?? [])])) {
    store.put(namespaceStorageKey, {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name, uid: randomUUID(), creationTimestamp: timestamp(), labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' },
    });
  }

  const faultState = new FaultState();
  const sockets = new Set<Socket>();
  let address = '127.0.0.1:0';
  const faults: Faults = {
    dropWatches: (o) => hub.dropAll(o?.mode ?? 'clean'),
    compact: (rv) => store.compact(rv),
    failNext: (o) => faultState.add(o),
    latency: (ms) => {
      faultState.latencyMs = Math.max(0, ms);
    },
    stallWatches: (ms) => hub.stall(ms),
    injectMalformedLine: (o) => hub.inject(badLines[o?.kind ?? 'malformed']),
    restart: () => {
      for (const s of sockets) s.destroy();
    },
    clear: () => faultState.clear(),
  };
  const handler = createHandler({
    state, faultState, faults, token: options.token, maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
    serverAddress: () => address,
  });

  let caCertPem: string | undefined;
  let server: http.Server;
  if (options.tls === true) {
    const ca = createCertificateAuthority({ commonName: 'rxkube-test-ca' });
    const serving = issueCertificate(ca, { commonName: 'rxkube-apiserver', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server' });
    caCertPem = ca.certPem;
    server = https.createServer({ key: serving.keyPem, cert: serving.certPem }, handler);
  } else {
    server = http.createServer(handler);
  }
  server.keepAliveTimeout = 5000;
  // The raw TCP socket (also for TLS), so restart() and stop() also cut connections still in their handshake.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => {
    if (!socket.destroyed) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  address = `127.0.0.1:${port}`;
  const url = `${options.tls === true ? 'https' : 'http'}://127.0.0.1:${port}`;

  const kubeConfig = buildKubeConfig({
    name: 'rxkube', url, user: 'rxkube-admin',
    ...(caCertPem !== undefined ? { caPem: caCertPem } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  });

  let stopping: Promise<void> | undefined;
  return {
    url,
    kubeConfig,
    faults,
    caCertPem,
    resourceVersion: () => String(store.resourceVersion),
    seed: (objects, seedOptions) => seedObjects(state, objects, seedOptions),
    update: (objects, seedOptions) => updateObjects(state, objects, seedOptions),
    openWatches: () => hub.streams.size,
    writeKubeconfig: (path) => writeKubeConfigFile(kubeConfig, path),
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        hub.dropAll('abrupt');
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections?.();
      });
      return stopping;
    },
  };
}
