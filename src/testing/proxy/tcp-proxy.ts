/**
 * A TCP proxy on 127.0.0.1 that passes, stalls or resets connections: the network faults between a controller and
 * its API server (a partition, a peer that vanished without a FIN, a reset), for tests and the soak.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** What a {@link TcpProxy} does with a connection. */
export type TcpProxyMode = 'pass' | 'stall' | 'reset';

/** Options of {@link startTcpProxy}. */
export interface TcpProxyOptions {
  /** Where connections are forwarded: the upstream's host (default `127.0.0.1`). */
  readonly targetHost?: string;
  /** The upstream's port. */
  readonly targetPort: number;
  /** The port to listen on, on 127.0.0.1; default 0 (any free port). */
  readonly port?: number;
}

/** Which connections a fault applies to. */
export type TcpProxyScope = 'open' | 'all';

/**
 * A running TCP proxy. Point a client at `127.0.0.1:port` (for HTTPS, keep the server's name: the proxy forwards
 * bytes, TLS goes through it untouched).
 *
 * # Guarantees
 * - `stall('open')` stops every byte of the connections open now, both ways, without a FIN or a reset: the client
 *   sees a peer that vanished (its kernel keeps the connection up); connections opened later pass. `stall('all')`
 *   stalls new connections too (they are accepted, then nothing flows): a partition.
 * - `reset('open')` resets the connections open now (RST to the client, the upstream side destroyed); `reset('all')`
 *   resets new ones too, at once.
 * - `pass()` ends the fault: stalled connections resume where they were, holding every byte (as TCP does when a
 *   partition heals), and new connections pass.
 * - A FIN is passed on as a FIN (half-close), an error or close on one side destroys the other; not while the
 *   connection is stalled: then the other side learns nothing until `pass()` (a partition carries no FIN either).
 * - `close()` resets every connection and stops listening; it resolves once the port is free. Safe to call twice.
 * - Nothing it closes outlives `close()`, so the process can exit: a connection whose FIN is under way when it is
 *   reset is destroyed instead (Node's `resetAndDestroy()` then fails and leaves a handle that is never closed).
 *
 * # Caveats
 * - A connection that is already sending its FIN (its peer half-closed it, or the upstream ended) is not reset but
 *   destroyed: the client sees the FIN, then the close, not ECONNRESET.
 */
export interface TcpProxy {
  /** The port the proxy listens on, on 127.0.0.1. */
  readonly port: number;
  /** The mode new connections get. */
  readonly mode: TcpProxyMode;
  /** Connections open through the proxy now. */
  readonly openConnections: number;
  /** Connections accepted since the start. */
  readonly acceptedConnections: number;
  /**
   * A copy of `kubeConfig` whose clusters' servers are this proxy (host `127.0.0.1`, this port; scheme and path
   * kept), with the same users, contexts and CA: a client built on it reaches the upstream through the proxy.
   */
  routeThrough(kubeConfig: KubeConfig): KubeConfig;
  /** Stalls the open connections (`'open'`) or every connection until `pass()` (`'all'`, the default). */
  stall(scope?: TcpProxyScope): void;
  /** Resets the open connections (`'open'`) or every connection until `pass()` (`'all'`, the default). */
  reset(scope?: TcpProxyScope): void;
  /** Lets every connection pass again, stalled ones included. */
  pass(): void;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

/** One client connection and its upstream. */
interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  stalled: boolean;
  /** A side closed while the pair was stalled: the other side learns it only when the stall ends. */
  closedWhileStalled: boolean;
}

/**
 * Starts a {@link TcpProxy} on 127.0.0.1 in front of `targetHost:targetPort`.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy({ targetPort: 6443 });
 * proxy.stall('open'); // the pooled connections hang; new ones pass
 * proxy.pass();
 * await proxy.close();
 * ```
 */
export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const { targetPort } = options;
  if (!Number.isInteger(targetPort) || targetPort <= 0 || targetPort > 65_535) {
    throw new RangeError(`startTcpProxy: targetPort must be a port number, got ${String(targetPort)}`);
  }
  const targetHost = options.targetHost ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  let mode: TcpProxyMode = 'pass';
  let accepted = 0;

  const resetPair = (pair: Pair): void => {
    pairs.delete(pair);
    resetSocket(pair.client);
    pair.upstream.destroy();
  };
  const setStalled = (pair: Pair, stalled: boolean): void => {
    pair.stalled = stalled;
    for (const [from, to] of [
      [pair.client, pair.upstream],
      [pair.upstream, pair.client],
    ] as const) {
      if (stalled) from.pause();
      // A side still waiting for its peer to drain is resumed by `forward` once it has.
      else if (!to.writableNeedDrain) from.resume();
    }
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode === 'reset') {
      resetSocket(client);
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort });
    upstream.on('error', () => undefined);
    const pair: Pair = { client, upstream, stalled: false, closedWhileStalled: false };
    pairs.add(pair);
    forward(pair, client, upstream);
    forward(pair, upstream, client);
    const drop = (): void => {
      // A stalled link carries no FIN and no reset either: the other side keeps waiting, as across a partition.
      if (pair.stalled) {
        pair.closedWhileStalled = true;
        return;
      }
      if (!pairs.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    if (mode === 'stall') setStalled(pair, true);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    port,
    get mode() {
      return mode;
    },
    get openConnections() {
      return pairs.size;
    },
    get acceptedConnections() {
      return accepted;
    },
    routeThrough(kubeConfig) {
      const routed = new KubeConfig();
      routed.loadFromOptions({
        clusters: kubeConfig.clusters.map((cluster) => {
          const server = new URL(cluster.server);
          server.hostname = '127.0.0.1';
          server.port = String(port);
          return { ...cluster, server: server.toString().replace(/\/$/, '') };
        }),
        users: kubeConfig.users,
        contexts: kubeConfig.contexts,
        currentContext: kubeConfig.currentContext,
      });
      return routed;
    },
    stall(scope = 'all') {
      for (const pair of pairs) setStalled(pair, true);
      if (scope === 'all') mode = 'stall';
    },
    reset(scope = 'all') {
      for (const pair of [...pairs]) resetPair(pair);
      if (scope === 'all') mode = 'reset';
    },
    pass() {
      mode = 'pass';
      for (const pair of [...pairs]) {
        if (!pair.stalled) continue;
        setStalled(pair, false);
        if (pair.closedWhileStalled) {
          pairs.delete(pair);
          pair.client.destroy();
          pair.upstream.destroy();
        }
      }
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        mode = 'reset';
        for (const pair of [...pairs]) resetPair(pair);
        server.close(() => resolve());
      });
      return closing;
    },
  };
}

/** Copies `from` to `to` with back-pressure; a FIN is passed on as a FIN; nothing flows while the pair is stalled. */
function forward(pair: Pair, from: Socket, to: Socket): void {
  from.on('data', (chunk: Buffer) => {
    if (to.write(chunk)) return;
    from.pause();
    to.once('drain', () => {
      if (!pair.stalled) from.resume();
    });
  });
  from.on('end', () => {
    if (pair.stalled) pair.closedWhileStalled = true;
    else to.end();
  });
}

/**
 * Resets `socket` (an RST to its peer), or destroys it when its writing side has ended: Node's `resetAndDestroy()`
 * on a socket whose shutdown (the FIN that `end()` asks for) is still pending fails with EINVAL, and the socket's
 * handle is then never closed. The process cannot exit: Node 24, tearing it down, waits for that handle in a loop
 * that spins at 100 % CPU forever, where neither timers nor the inspector run. The proxy ends a client's side
 * itself when its peer half-closes (`allowHalfOpen` is off) or the upstream ends, so a reset (a fault, or `close()`
 * when a replica exits) can come in that window.
 */
function resetSocket(socket: Socket): void {
  if (socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}
