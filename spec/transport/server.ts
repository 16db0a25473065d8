/**
 * A tiny HTTP(S) server for transport specs: 127.0.0.1, port 0, and a close that never waits on open sockets.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  readonly kc: KubeConfig;
  readonly url: string;
  /** Every request seen, in order. */
  readonly requests: IncomingMessage[];
  close(): Promise<void>;
}

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** Starts a server; `tls` serves HTTPS with the fixture certificate and a kubeconfig that trusts it. */
export async function startServer(
  handler: Handler,
  options: { tls?: boolean; token?: string } = {},
): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    requests.push(req);
    handler(req, res);
  };
  const cert = fixture('server-cert.pem');
  const server = options.tls
    ? https.createServer({ cert, key: fixture('server-key.pem') }, listener)
    : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      options.tls
        ? { name: 'c', server: url, caData: Buffer.from(cert).toString('base64'), skipTLSVerify: false }
        : { name: 'c', server: url, skipTLSVerify: true },
    ],
    users: [{ name: 'u', token: options.token ?? 'secret-token' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return {
    kc,
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Resolves when the server-side request is closed (the client went away or the response ended). */
export function closed(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.socket.destroyed) resolve();
    else req.socket.once('close', () => resolve());
  });
}

/** Resolves after the event loop has had a chance to deliver what was written (not a timing assertion). */
export function tick(ms = 5): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
