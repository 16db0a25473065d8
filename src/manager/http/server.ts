/**
 * A plain HTTP server as a cold Observable: subscribing listens, unsubscribing closes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Observable } from 'rxjs';
import type { ServerAddress } from '../types.js';

/** Handles one request; a rejection answers 500. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/**
 * Listens on `host:port` (all interfaces when `host` is undefined; a free port for 0) and emits where, once.
 *
 * # Guarantees
 * - Errors with the listen error (`EADDRINUSE`, `EACCES`), its message naming the address, if it cannot listen.
 * - Unsubscribing stops listening and closes every connection at once, keep-alive ones included.
 * - A handler that throws or rejects answers 500 instead of leaving the request hanging.
 */
export function serve(
  what: string,
  host: string | undefined,
  port: number,
  handler: RequestHandler,
): Observable<ServerAddress> {
  return new Observable<ServerAddress>((subscriber) => {
    const server = createServer((request, response) => {
      Promise.resolve()
        .then(() => handler(request, response))
        .catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
          response.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
        });
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      subscriber.error(
        new Error(`manager: the ${what} server cannot listen on ${host ?? '*'}:${port}: ${error.message}`, {
          cause: error,
        }),
      );
    });
    server.listen({ port, ...(host === undefined ? {} : { host }) }, () => {
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      subscriber.next({ host: address.address, port: address.port, url: `http://${shown}:${address.port}` });
    });
    return () => {
      server.close();
      server.closeAllConnections();
    };
  });
}
