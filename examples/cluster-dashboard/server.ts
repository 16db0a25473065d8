/**
 * The dashboard's HTTP server on 127.0.0.1: the page (plain HTML, one script, one stylesheet, read once from
 * `page/`), its event stream, and the current picture as JSON.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { BehaviorSubject, firstValueFrom, type Observable, type SchedulerLike } from 'rxjs';
import { messageOf } from '../shared/health.js';
import { serveEventStream, type ConnectionStats, type Frame } from './event-stream.js';

/** The interface the dashboard listens on: the page has no authentication, so it is never served off the machine. */
export const DASHBOARD_HOST = '127.0.0.1';

/** Host names a request may name (the `Host` header): loopback only, so a DNS-rebinding page cannot read it. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

const PAGE_DIR = new URL('./page/', import.meta.url);

/** The files of the page, by path: read once, served from memory. */
const ASSETS: ReadonlyMap<string, { readonly file: string; readonly type: string }> = new Map([
  ['/', { file: 'index.html', type: 'text/html; charset=utf-8' }],
  ['/dashboard.js', { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' }],
  ['/dashboard.css', { file: 'dashboard.css', type: 'text/css; charset=utf-8' }],
]);

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

/** What the server has sent, over its open connections. */
export interface ServerStats {
  /** Browsers connected to the event stream now. */
  readonly clients: number;
  /** Every open connection's counters. */
  readonly connections: readonly ConnectionStats[];
  /** Event-stream requests refused because `maxClients` were connected. */
  readonly refused: number;
}

/** A running dashboard server. */
export interface DashboardServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** How many browsers hold the event stream open (replays the current count). */
  readonly clients$: Observable<number>;
  stats(): ServerStats;
  /** Ends every event stream and stops listening; resolves once the server is closed. */
  close(): Promise<void>;
}

/** What {@link startDashboardServer} serves. */
export interface ServeOptions {
  /** The port on {@link DASHBOARD_HOST}; 0 for a free one. */
  readonly port: number;
  /** Event streams open at once; one more is answered 503 with `Retry-After`. */
  readonly maxClients: number;
  /** The pictures, serialized once for every connection, the latest replayed on subscribe (see `serveEventStream`). */
  readonly frames$: Observable<Frame>;
  /** The heartbeat's scheduler. */
  readonly scheduler: SchedulerLike;
}

/**
 * Listens on `127.0.0.1:<port>` and resolves once it does (rejects with the listen error, e.g. `EADDRINUSE`).
 *
 * # Guarantees
 * - Binds the loopback interface only, and answers 403 to a request whose `Host` is not a loopback name.
 * - `GET /`, `/dashboard.js`, `/dashboard.css`: the page; `GET /events`: the event stream; `GET /state`: the
 *   current picture as JSON. Anything else is 404, another method 405.
 * - At most `maxClients` event streams; each holds at most its socket's high-water mark plus one frame unsent.
 */
export function startDashboardServer(options: ServeOptions): Promise<DashboardServer> {
  const assets = new Map(
    [...ASSETS].map(([path, { file, type }]) => [path, { body: readFileSync(new URL(file, PAGE_DIR)), type }]),
  );
  const clients$ = new BehaviorSubject(0);
  const open = new Map<ServerResponse, { readonly stats: ConnectionStats; readonly stop: () => void }>();
  let refused = 0;

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_HOSTS.has(host))
      return void plain(
        response,
        403,
        `the dashboard answers requests to 127.0.0.1 or localhost only, not ${JSON.stringify(host)}\n`,
      );
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return void plain(response, 405, `${request.method} is not allowed; the dashboard is read-only\n`);
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const asset = assets.get(path === '/index.html' ? '/' : path);
    if (asset !== undefined) {
      response.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS });
      response.end(request.method === 'HEAD' ? undefined : asset.body);
      return;
    }
    if (path === '/state') {
      firstValueFrom(options.frames$).then(
        (frame) => {
          response.writeHead(200, {
            'Content-Type': 'application/json; charset=utf-8',
            'Cache-Control': 'no-store',
            ...SECURITY_HEADERS,
          });
          response.end(request.method === 'HEAD' ? undefined : frame.json);
        },
        (error: unknown) => plain(response, 503, `no picture to serve: ${messageOf(error)}\n`),
      );
      return;
    }
    if (path !== '/events') return void plain(response, 404, `no such page: ${path}\n`);
    if (open.size >= options.maxClients) {
      refused += 1;
      response.setHeader('Retry-After', '5');
      return void plain(
        response,
        503,
        `${options.maxClients} browsers are connected already, the most this dashboard serves at once\n`,
      );
    }
    const stats: ConnectionStats = { offered: 0, written: 0, peakBufferedBytes: 0, highWaterMark: 0 };
    const stop = serveEventStream(response, options.frames$, stats, options.scheduler);
    open.set(response, { stats, stop });
    clients$.next(open.size);
    response.once('close', () => {
      stop();
      open.delete(response);
      clients$.next(open.size);
    });
  };

  const server = createServer(handle);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, DASHBOARD_HOST, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${DASHBOARD_HOST}:${port}/`,
        clients$: clients$.asObservable(),
        stats: () => ({
          clients: open.size,
          connections: [...open.values()].map(({ stats }) => ({ ...stats })),
          refused,
        }),
        close: () =>
          new Promise<void>((closed) => {
            for (const { stop } of open.values()) stop();
            server.close(() => closed());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
  response.end(text);
}
