/**
 * A scripted {@link Transport} for virtual-time specs: each request takes the next script in order and records
 * when it was made and whether it was aborted.
 */
import { asyncScheduler, map, NEVER, Observable } from 'rxjs';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import type {
  QueryParams,
  RequestOptions,
  Transport,
  TransportRequest,
  TransportResponse,
  WatchRequestOptions,
} from '../../src/transport/index.js';
import type { ResolvedResource } from '../../src/resources/index.js';
import type { HealthRoutingConnection, WatchHealthReport } from '../../src/watch/index.js';

export interface FakeCall {
  readonly kind: 'get' | 'watch';
  readonly path: string;
  readonly query: QueryParams;
  readonly accept: string | undefined;
  /** Virtual time at subscription. */
  readonly at: number;
  /** Unsubscribed before the scripted response finished. */
  aborted: boolean;
  abortedAt?: number;
  done: boolean;
}

type Script = { kind: 'get' | 'watch'; respond: (call: FakeCall) => Observable<unknown> };

export class FakeTransport implements Transport, HealthRoutingConnection {
  readonly calls: FakeCall[] = [];
  /** The health reports of the watches over it (its `onHealth` is their default), so none reaches stderr. */
  readonly health: WatchHealthReport[] = [];
  readonly onHealth = (report: WatchHealthReport): void => {
    this.health.push(report);
  };
  /** Requests whose kind did not match the next script (a spec bug or a reflector bug). */
  readonly unexpected: string[] = [];
  private readonly scripts: Script[] = [];
  /** The API warnings every accepted GET and watch carries (handed to `onWarnings` as it is accepted). */
  warnings: readonly string[] = [];

  /** Scripts the next GET (list page or discovery). */
  onGet(respond: Observable<unknown> | ((call: FakeCall) => Observable<unknown>)): this {
    this.scripts.push({ kind: 'get', respond: typeof respond === 'function' ? respond : () => respond });
    return this;
  }

  /** Scripts the next watch. */
  onWatch(respond: Observable<string> | ((call: FakeCall) => Observable<string>)): this {
    this.scripts.push({ kind: 'watch', respond: typeof respond === 'function' ? respond : () => respond });
    return this;
  }

  get(path: string, query: QueryParams, options?: Pick<RequestOptions, 'accept' | 'onWarnings'>): Observable<unknown> {
    return this.serve('get', path, query, options?.accept, undefined, options?.onWarnings);
  }

  /**
   * A scripted watch is accepted (`onOpen`) as soon as it is subscribed, unless its script fails at once, as an
   * HTTP error status would.
   */
  watch(path: string, query: QueryParams, options?: Omit<WatchRequestOptions, 'signal'>): Observable<string> {
    return this.serve(
      'watch',
      path,
      query,
      options?.accept,
      options?.onOpen,
      options?.onWarnings,
    ) as Observable<string>;
  }

  /** Reflector specs make no writes: a write is a spec bug, reported as an unexpected request. */
  request(request: TransportRequest): Observable<TransportResponse> {
    this.unexpected.push(`unexpected ${request.method} ${request.path}`);
    return NEVER;
  }

  /** Calls of one kind, in order. */
  of(kind: 'get' | 'watch'): FakeCall[] {
    return this.calls.filter((c) => c.kind === kind);
  }

  private serve(
    kind: 'get' | 'watch',
    path: string,
    query: QueryParams,
    accept: string | undefined,
    onOpen?: () => void,
    onWarnings?: (texts: readonly string[]) => void,
  ): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const call: FakeCall = { kind, path, query, accept, at: asyncScheduler.now(), aborted: false, done: false };
      this.calls.push(call);
      const script = this.scripts.shift();
      let source: Observable<unknown> = NEVER;
      if (script === undefined) {
        // Unscripted requests hang, like a server that never answers; specs bound time by unsubscribing.
      } else if (script.kind !== kind) {
        this.unexpected.push(`request ${this.calls.length}: expected ${script.kind}, got ${kind} ${path}`);
      } else {
        source = script.respond(call);
      }
      let failed = false;
      let accepted = false;
      const markAccepted = (): void => {
        if (accepted) return;
        accepted = true;
        if (this.warnings.length > 0) onWarnings?.(this.warnings);
      };
      const inner = source.subscribe({
        next: (value) => {
          markAccepted();
          subscriber.next(value);
        },
        error: (err: unknown) => {
          call.done = true;
          failed = true;
          subscriber.error(err);
        },
        complete: () => {
          call.done = true;
          subscriber.complete();
        },
      });
      if (!failed && !subscriber.closed && kind === 'watch') {
        markAccepted();
        onOpen?.();
      }
      return () => {
        if (!call.done) {
          call.aborted = true;
          call.abortedAt = asyncScheduler.now();
        }
        inner.unsubscribe();
      };
    });
  }
}

/**
 * A {@link FakeTransport} that also reads watches by chunk (`watchChunks`), as the HTTP transport does: a watch
 * script may emit a line or an array of lines that arrived together.
 */
export class ChunkedFakeTransport extends FakeTransport {
  watchChunks(
    path: string,
    query: QueryParams,
    options?: Omit<WatchRequestOptions, 'signal'>,
  ): Observable<readonly string[]> {
    return this.watch(path, query, options).pipe(
      map((lines: string | readonly string[]) => (typeof lines === 'string' ? [lines] : lines)),
    );
  }
}

/** A core-group, namespaced resource, already resolved, so specs need no discovery script. */
export const PODS: ResolvedResource = { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };

/** An empty KubeConfig: specs always inject the fake transport. */
export const kc = new KubeConfig();

export type Obj = KubernetesObject & { metadata: V1ObjectMeta };

export function pod(name: string, rv: string, extra: Partial<V1ObjectMeta> = {}): Obj {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', resourceVersion: rv, ...extra } };
}

export function page(items: unknown[], rv: string, cont?: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'PodList',
    metadata: { resourceVersion: rv, ...(cont ? { continue: cont } : {}) },
    items,
  };
}

export function line(type: string, object: unknown): string {
  return JSON.stringify({ type, object });
}

export function bookmark(rv: string, initialEventsEnd = false): string {
  const annotations = initialEventsEnd ? { 'k8s.io/initial-events-end': 'true' } : undefined;
  return line('BOOKMARK', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { resourceVersion: rv, ...(annotations ? { annotations } : {}) },
  });
}

export function statusLine(code: number, reason: string, message = reason): string {
  return line('ERROR', { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });
}

/** A deterministic PRNG (mulberry32) for seeded jitter: the one the in-memory server seeds its runtime with. */
export { seededRandom as seeded } from '../../src/testing/apiserver/machinery/runtime.js';
