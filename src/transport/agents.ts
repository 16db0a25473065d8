/**
 * The connection pools of the HTTP transport: one keep-alive agent per protocol for the whole process, so that list
 * pages, reads and writes reuse connections (and TLS sessions) instead of opening one per request, as client-go's
 * transport does. Internal to the transport.
 */
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * How long an idle connection stays in a pool. Shorter than kube-apiserver's idle timeout (90 s) and than common load
 * balancers' (60 s), so the pool seldom hands out a connection that the other side is closing; a server that announces
 * a shorter `Keep-Alive: timeout` gets a second less than it announced, as Node's agent would give it.
 */
export const IDLE_CONNECTION_MS = 30_000;

/** The idle timeout (ms) a server announced for a connection, by its `Keep-Alive: timeout=N` response header. */
const announcedIdleMs = new WeakMap<object, number>();

/**
 * Notes the idle timeout a response's `Keep-Alive` header announces for its connection. Node's agent honours such a
 * header only below an agent-wide socket timeout, which would also time out a silent watch; the pool does it here.
 */
export function noteKeepAlive(res: IncomingMessage): void {
  const header = res.headersDistinct['keep-alive']?.[0];
  const seconds = header === undefined ? undefined : /(?:^|[\s,])timeout=(\d+)/i.exec(header)?.[1];
  if (seconds !== undefined) announcedIdleMs.set(res.socket, Number(seconds) * 1000);
}

/**
 * Gives a connection going back to the pool its idle timeout: `IDLE_CONNECTION_MS`, or a second less than the server
 * announced if that is shorter; one the server would close within a second is not kept.
 */
function idleFor(socket: Duplex, kept: boolean): boolean {
  const announced = announcedIdleMs.get(socket);
  const idleMs = announced === undefined ? IDLE_CONNECTION_MS : Math.min(IDLE_CONNECTION_MS, announced - 1000);
  if (!kept || idleMs <= 0) return false;
  (socket as Socket).setTimeout(idleMs);
  return true;
}

/** `base` with `idleFor` applied to every connection going back to its pool; one definition for HTTP and HTTPS. */
// biome-ignore lint/suspicious/noExplicitAny: a mixin's base must be constructible with any arguments (TS2545)
function closingIdle<Base extends new (...args: any[]) => http.Agent>(base: Base) {
  return class extends base {
    override keepSocketAlive(socket: Duplex): boolean {
      return idleFor(socket, super.keepSocketAlive(socket) as unknown as boolean);
    }
  };
}

/**
 * The process's pools. Node keys an HTTPS pool by host, port and every TLS option of the request (CA, client
 * certificate and key, server name, verification), so two KubeConfigs, or a client certificate that an exec plugin
 * rotated, never share a connection. Idle connections do not keep the process alive.
 */
const pools = {
  http: new (closingIdle(http.Agent))({ keepAlive: true }),
  https: new (closingIdle(https.Agent))({ keepAlive: true }),
};

/** The pooled agent for `url`'s protocol. */
export function pooledAgent(url: URL): http.Agent {
  return url.protocol === 'http:' ? pools.http : pools.https;
}

/** Node's codes for a connection that the server closed or reset under a request. */
const CLOSED_UNDER_REQUEST = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Whether a failed request may be sent again on a new connection: it went out on a pooled connection that the server
 * had closed (the race between an idle timeout and a new request), and its method is one that Go's transport replays
 * (GET, HEAD). A write is never replayed: the server may have applied it before the connection dropped.
 */
export function replayOnNewConnection(method: string, reusedSocket: boolean, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    reusedSocket &&
    (method === 'GET' || method === 'HEAD') &&
    typeof code === 'string' &&
    CLOSED_UNDER_REQUEST.has(code)
  );
}
