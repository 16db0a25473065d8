import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Client TLS material for talking to kube-apiserver directly (before any KubeConfig exists). */
export interface ClientTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** A small, bounded HTTP(S) call: never keeps a socket after it settles, always ends within `timeoutMs`. */
export function fetchText(
  url: string,
  options: { method?: string; body?: string; tls?: ClientTls; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        agent: false,
        timeout: options.timeoutMs ?? 5000,
        headers: options.body === undefined ? {} : { 'content-type': 'application/json' },
        ...(options.tls ? { ca: options.tls.ca, cert: options.tls.cert, key: options.tls.key } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`timed out after ${options.timeoutMs ?? 5000} ms: ${options.method ?? 'GET'} ${url}`)),
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A TCP port that was free on 127.0.0.1 a moment ago.
 *
 * # Caveats
 * Another process can take it before the caller binds it; callers that hand ports to child processes retry the
 * start on `address already in use`.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
