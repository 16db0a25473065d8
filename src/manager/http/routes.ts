/**
 * The manager's HTTP endpoints: `/metrics` on the metrics server; `/healthz` (alias `/livez`) and `/readyz` on the
 * probe server, answering as kube-apiserver's own probes do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CheckResult } from '../health/index.js';
import type { RequestHandler } from './server.js';

const TEXT = 'text/plain; charset=utf-8';

/** What a probe endpoint needs: the checks to run now, each `[name, failure or undefined]`. */
export type ProbeChecks = () => Promise<readonly CheckResult[]>;

/** Serves `/metrics` from `scrape` with `contentType`; 404 elsewhere. */
export function metricsRoutes(scrape: () => Promise<string>, contentType: string): RequestHandler {
  return async (request, response) => {
    if (!allowed(request, response)) return;
    if (pathOf(request) !== '/metrics') return notFound(response);
    const body = await scrape();
    response.writeHead(200, { 'Content-Type': contentType });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
}

/**
 * Serves `/healthz`, `/livez` and `/readyz`.
 *
 * # Guarantees
 * - 200 `ok` when every check passes, 500 otherwise with one `[+]name ok` / `[-]name failed: reason` line per check
 *   and `<probe> check failed`; `?verbose` lists the checks on success too.
 * - Reasons pass through `redact` first.
 */
export function probeRoutes(health: ProbeChecks, ready: ProbeChecks, redact: (text: string) => string): RequestHandler {
  return async (request, response) => {
    if (!allowed(request, response)) return;
    const path = pathOf(request);
    const probe = path === '/healthz' || path === '/livez' ? health : path === '/readyz' ? ready : undefined;
    if (probe === undefined) return notFound(response);
    const results = await probe();
    const failed = results.some(([, failure]) => failure !== undefined);
    const verbose = new URL(request.url ?? '/', 'http://probe').searchParams.has('verbose');
    const lines = results.map(([name, failure]) =>
      failure === undefined ? `[+]${name} ok` : `[-]${name} failed: ${redact(failure)}`,
    );
    const body = failed
      ? `${lines.join('\n')}\n${path.slice(1)} check failed\n`
      : verbose
        ? `${lines.join('\n')}\n${path.slice(1)} check passed\n`
        : 'ok';
    response.writeHead(failed ? 500 : 200, { 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff' });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
}

function allowed(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  response.writeHead(405, { 'Content-Type': TEXT, Allow: 'GET, HEAD' });
  response.end('method not allowed\n');
  return false;
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://probe').pathname;
}

function notFound(response: ServerResponse): void {
  response.writeHead(404, { 'Content-Type': TEXT });
  response.end('not found\n');
}
