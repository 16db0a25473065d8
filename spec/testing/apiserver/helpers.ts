/** Shared helpers for the in-memory API server specs: raw requests, watch collectors, bounded waits. */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { TestCluster } from '../../../src/testing/index.js';

/** A watch event as delivered on the wire. */
export interface WireEvent {
  readonly type: string;
  readonly object: { kind?: string; apiVersion?: string; metadata?: Record<string, any>; [k: string]: any };
}

/** Resolves when `predicate` holds; the shared bounded wait under the name these specs use. */
export { waitFor as until } from '../../support/wait.js';

/** `fetch` against the cluster with its token (when it has one). */
export function raw(
  cluster: TestCluster,
  path: string,
  init: RequestInit & { token?: string | null } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? tokenOf(cluster.kubeConfig) : init.token;
  if (token !== null && token !== undefined) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${cluster.url}${path}`, { ...init, headers });
}

function tokenOf(kc: KubeConfig): string | undefined {
  return kc.getCurrentUser()?.token;
}

/** Sends a JSON body with `method` and returns status and parsed body. */
export async function send(
  cluster: TestCluster,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await raw(cluster, path, {
    method,
    ...(body !== undefined
      ? { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': contentType } }
      : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A raw watch stream: every line as received, parsed when it is JSON. */
export interface RawWatch {
  readonly status: number;
  readonly lines: string[];
  readonly events: WireEvent[];
  /** Resolves when the server ends the body (clean close) or the socket dies (error set). */
  readonly ended: Promise<{ error?: unknown }>;
  stop(): void;
}

/** Opens a watch with `fetch` and records lines; use for shapes client-node hides (ERROR, BOOKMARK, bad lines). */
export async function rawWatch(
  cluster: TestCluster,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawWatch> {
  const controller = new AbortController();
  const res = await raw(cluster, path, { signal: controller.signal, headers });
  const lines: string[] = [];
  const events: WireEvent[] = [];
  const ended = (async () => {
    if (res.body === null) return {};
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return {};
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          lines.push(line);
          try {
            events.push(JSON.parse(line) as WireEvent);
          } catch {
            // malformed lines are kept in `lines` only
          }
        }
      }
    } catch (error) {
      return { error };
    }
  })();
  return { status: res.status, lines, events, ended, stop: () => controller.abort() };
}

/** A client-node `Watch` recording events, for the paths client code really uses. */
export interface ClientWatch {
  readonly events: WireEvent[];
  readonly done: Promise<unknown>;
  stop(): void;
}

/** Starts `new Watch(kc).watch(path, query, ...)` and records events until done. */
export async function clientWatch(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
): Promise<ClientWatch> {
  const events: WireEvent[] = [];
  let finish: (error: unknown) => void = () => undefined;
  const done = new Promise<unknown>((resolve) => {
    finish = resolve;
  });
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object }),
    (error) => finish(error ?? null),
  );
  return { events, done, stop: () => controller.abort() };
}

/** A minimal valid pod body. */
export function podBody(name: string, extra: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...extra },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  };
}

/** A minimal valid deployment body. */
export function deploymentBody(name: string, replicas = 1): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'busybox' }] } },
    },
  };
}

/** The `.code` and parsed `.body` of a client-node ApiException. */
export async function failure(promise: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: number; body?: unknown };
    if (typeof e.code !== 'number') throw error;
    const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
    return { code: e.code, body };
  }
  throw new Error('expected the request to fail');
}
