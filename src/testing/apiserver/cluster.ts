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
import { createServerCore, type InMemoryServerOptions } from './core.js';
import { createHandler, type Faults, type RequestLog } from './serving/index.js';
import { realRuntime } from './machinery/index.js';
import type { SeedOptions } from './write-path/index.js';

/** Options of {@link startTestCluster}. */
export interface TestClusterOptions extends InMemoryServerOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Serve HTTPS with an in-process CA and serving certificate for 127.0.0.1/localhost (default false). */
  readonly tls?: boolean;
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
  /**
   * Every request the server was asked, with its answer's status (see {@link RequestLog}): what a test counts its
   * controller's requests with. Bounded by `requestLogSize` (default 10000); `rxkube-test-cluster --log-requests`
   * prints it as it grows.
   */
  readonly requestLog: RequestLog;
}

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
  const sockets = new Set<Socket>();
  let address = '127.0.0.1:0';
  const maxBodyBytes = options.maxBodyBytes ?? 3 * 1024 * 1024;
  const core = createServerCore({ ...options, maxBodyBytes }, realRuntime(), {
    restart: () => {
      for (const s of sockets) s.destroy();
    },
    serverAddress: () => address,
  });
  const { faults } = core;
  const handler = createHandler(core, maxBodyBytes);

  let caCertPem: string | undefined;
  let server: http.Server;
  if (options.tls === true) {
    const ca = createCertificateAuthority({ commonName: 'rxkube-test-ca' });
    const serving = issueCertificate(ca, {
      commonName: 'rxkube-apiserver',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
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
    name: 'rxkube',
    url,
    user: 'rxkube-admin',
    ...(caCertPem !== undefined ? { caPem: caCertPem } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  });

  let stopping: Promise<void> | undefined;
  return {
    url,
    kubeConfig,
    faults,
    caCertPem,
    resourceVersion: () => core.resourceVersion(),
    seed: (objects, seedOptions) => core.seed(objects, seedOptions),
    update: (objects, seedOptions) => core.update(objects, seedOptions),
    openWatches: () => core.openWatches(),
    requestLog: core.requestLog,
    writeKubeconfig: (path) => writeKubeConfigFile(kubeConfig, path),
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        core.state.hub.dropAll('abrupt');
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections?.();
      });
      return stopping;
    },
  };
}
