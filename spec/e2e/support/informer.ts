/**
 * Helpers for the informer e2e suite: a TCP cut-off switch in front of the real kube-apiserver, a transport that
 * records every request and watch line the reflector makes, and throwaway namespaces.
 */
import { type CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { defer, tap, type Observable } from 'rxjs';
import { startTcpProxy, type TcpProxy } from '../../../src/testing/proxy/index.js';
import { kubeTransport, type QueryParams, type Transport } from '../../../src/transport/index.js';
import { decodeWatchLine } from '../../../src/watch/index.js';

/**
 * A TCP relay on 127.0.0.1 in front of `target` whose link can be cut and restored, so an informer can be kept
 * away from the server while the test writes, compacts and restarts behind its back. It is a {@link TcpProxy}
 * (`reset('all')` and `pass()`), whose close leaves nothing that keeps the run from exiting.
 *
 * # Guarantees
 * - `cut()` resets every relayed connection at once and, until `restore()`, resets every new one the moment it
 *   is accepted: the client sees a real network failure, not a fake error.
 * - `close()` resets everything and stops listening; it resolves once the listening socket is closed.
 *
 * # Caveats
 * - Relays bytes only: TLS is end to end, so `target`'s certificate must be valid for 127.0.0.1.
 */
export interface CuttableLink {
  /** `https://127.0.0.1:<port>` of the relay. */
  readonly url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a {@link CuttableLink} to `target` (an `https://host:port` URL) on a free port. */
export async function cuttableLink(target: string): Promise<CuttableLink> {
  const { hostname, port } = new URL(target);
  const proxy: TcpProxy = await startTcpProxy({ targetHost: hostname, targetPort: Number(port) });
  return {
    url: `https://127.0.0.1:${proxy.port}`,
    cut: () => proxy.reset('all'),
    restore: () => proxy.pass(),
    close: () => proxy.close(),
  };
}

/** A copy of `kubeConfig` (same user, CA and context) whose clusters all point at `server`. */
export function pointedAt(kubeConfig: KubeConfig, server: string): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kubeConfig.getClusters().map((cluster) => ({ ...cluster, server })),
    users: kubeConfig.getUsers(),
    contexts: kubeConfig.getContexts(),
    currentContext: kubeConfig.getCurrentContext(),
  });
  return copy;
}

/** One request the reflector made through a {@link RecordingTransport}. */
export interface RecordedRequest {
  readonly kind: 'get' | 'watch';
  readonly path: string;
  readonly query: QueryParams;
}

/** A decoded BOOKMARK line seen on a watch. */
export interface SeenBookmark {
  readonly resourceVersion: string;
  readonly initialEventsEnd: boolean;
}

/**
 * The real HTTP transport of a KubeConfig, with every request and every BOOKMARK line recorded, so a test can
 * prove what went over the wire (no LIST during a streaming list; bookmarks requested and received).
 */
export interface RecordingTransport {
  readonly transport: Transport;
  readonly requests: RecordedRequest[];
  readonly bookmarks: SeenBookmark[];
}

/** Wraps `kubeTransport(kubeConfig)`; recording never changes what the reflector receives. */
export function recordingTransport(kubeConfig: KubeConfig): RecordingTransport {
  const inner = kubeTransport(kubeConfig);
  const requests: RecordedRequest[] = [];
  const bookmarks: SeenBookmark[] = [];
  // Recorded at subscription, not at call time: the transport contract says nothing is sent before that.
  const recorded = <V>(kind: RecordedRequest['kind'], path: string, query: QueryParams, source: () => Observable<V>) =>
    defer(() => {
      requests.push({ kind, path, query });
      return source();
    });
  return {
    requests,
    bookmarks,
    transport: {
      get: (path, query, options) => recorded('get', path, query, () => inner.get(path, query, options)),
      watch: (path, query, options) =>
        recorded('watch', path, query, () =>
          inner.watch(path, query, options).pipe(
            tap((line) => {
              const bookmark = asBookmark(line);
              if (bookmark) bookmarks.push(bookmark);
            }),
          ),
        ),
      request: (request) => inner.request(request),
    },
  };
}

/** The bookmark a watch line carries, decoded exactly as the reflector decodes it. */
function asBookmark(line: string): SeenBookmark | undefined {
  const decoded = decodeWatchLine(line);
  return decoded.kind === 'bookmark'
    ? { resourceVersion: decoded.resourceVersion, initialEventsEnd: decoded.initialEventsEnd }
    : undefined;
}

const suffix = (): string => Math.random().toString(36).slice(2, 8);

/** Creates a namespace with a random name for one test; returns its name. */
export async function freshNamespace(core: CoreV1Api, prefix = 'e2e-informer'): Promise<string> {
  const made = await core.createNamespace({ body: { metadata: { name: `${prefix}-${suffix()}` } } });
  return made.metadata!.name!;
}

/**
 * Deletes a test namespace, best effort. Without a controller-manager it stays `Terminating` with its objects,
 * which is harmless: every test works in its own namespace and the control plane is thrown away after the run.
 */
export async function dropNamespace(core: CoreV1Api, name: string | undefined): Promise<void> {
  if (name !== undefined) await core.deleteNamespace({ name }).catch(() => undefined);
}
