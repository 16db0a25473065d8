/**
 * What the website operator's marble spec runs against, in virtual time: a small API server for Websites,
 * Deployments, Services and ConfigMaps (server-side apply that keeps the resourceVersion of an unchanged object,
 * JSON Patch with its `test`, status writes, scripted failures), discovery of the Website kind, the Lease server and
 * Event writes, every request logged with its virtual time.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, of, Subject, type SchedulerLike } from 'rxjs';
import type { Transport, TransportRequest, TransportResponse, WatchEvent } from '../../src/extend.js';
import { applyJsonPatch } from '../../src/testing/apiserver/patch/index.js';
import { apiError } from '../../spec/client/support/scripted-transport.js';
import type { VirtualLeaseServer } from '../../spec/leader/lease-server.js';
import { WEBSITE, WEBSITE_GROUP } from './website.js';

/** The discovery document of the Website kind's group/version. */
const DISCOVERY = {
  kind: 'APIResourceList', apiVersion: 'v1', groupVersion: WEBSITE.apiVersion,
  resources: [
    { name: 'websites', singularName: 'website', namespaced: true, kind: 'Website', verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { name: 'websites/status', singularName: '', namespaced: true, kind: 'Website', verbs: ['get', 'patch', 'update'] },
  ],
};

type Stored = KubernetesObject & { status?: unknown; spec?: unknown };

/** The in-memory objects and the request log of a marble run. */
export class VirtualApi {
  /** `<time> <METHOD> <path>` per request to the four kinds, `<time> Event <reason>` per Event written. */
  readonly lines: string[] = [];
  /** Every request body sent to the four kinds, by `<METHOD> <path>`, last one kept. */
  readonly bodies = new Map<string, unknown>();
  private readonly objects = new Map<string, Stored>();
  private readonly failures = new Map<string, number>();
  private readonly changes = new Subject<{ readonly kind: string; readonly event: WatchEvent }>();
  private version = 100;

  constructor(private readonly scheduler: SchedulerLike, private readonly leases: VirtualLeaseServer) {}

  /** Stores `object` under its path, as if created earlier (what the informers list must exist here too). */
  seed(path: string, object: Stored): void {
    this.objects.set(path, structuredClone(object));
  }

  /** The next `count` requests whose path starts with `prefix` fail with a 500. */
  failNext(prefix: string, count: number): void {
    this.failures.set(prefix, count);
  }

  /** The stored object at `path`. */
  get(path: string): Stored | undefined {
    return this.objects.get(path);
  }

  /**
   * The watch events of `kind` from now on: every write that changed an object, as kube-apiserver's watch would
   * carry it (`modified`, `added`, or `deleted` for an object whose last finalizer went while it was being deleted).
   */
  watch(kind: string): Observable<WatchEvent> {
    return new Observable<WatchEvent>((subscriber) => this.changes.subscribe((change) => {
      if (change.kind === kind) subscriber.next(change.event);
    }));
  }

  /** The transport the manager and the operator use. */
  transport(): Transport {
    const lease = this.leases.transport('me');
    return {
      get: (path, query, options) => (path === `/apis/${WEBSITE.apiVersion}` ? of(DISCOVERY) : lease.get(path, query, options)),
      watch: (path, query, options) => lease.watch(path, query, options),
      request: (request) => {
        if (request.path.startsWith('/apis/coordination.k8s.io/')) return lease.request(request);
        return this.answer(request);
      },
    };
  }

  private answer(request: TransportRequest): Observable<TransportResponse> {
    return new Observable<TransportResponse>((subscriber) => {
      const isEvent = request.path.startsWith('/apis/events.k8s.io/');
      if (!isEvent) {
        this.lines.push(`${this.scheduler.now()} ${request.method} ${request.path}`);
        this.bodies.set(`${request.method} ${request.path}`, request.body);
      }
      const action = this.scheduler.schedule(() => {
        try {
          if (isEvent) {
            this.lines.push(`${this.scheduler.now()} Event ${(request.body as { reason?: string }).reason}`);
            subscriber.next({ status: 201, body: { ...(request.body as object), metadata: { name: 'e', resourceVersion: '1' } }, headers: {} });
          } else {
            subscriber.next({ status: 200, body: this.write(request), headers: {} });
          }
          subscriber.complete();
        } catch (error) {
          subscriber.error(error);
        }
      }, isEvent ? 10 : 1);
      return () => action.unsubscribe();
    });
  }

  /** One write, as kube-apiserver would answer it (only what the operator sends is supported). */
  private write(request: TransportRequest): Stored {
    for (const [prefix, count] of this.failures) {
      if (count > 0 && request.path.startsWith(prefix)) {
        this.failures.set(prefix, count - 1);
        throw apiError(500, 'InternalError', 'Internal error occurred: injected fault');
      }
    }
    const status = request.path.endsWith('/status');
    const path = status ? request.path.slice(0, -'/status'.length) : request.path;
    const existing = this.objects.get(path);
    let next: Stored;
    if (request.contentType === 'application/json-patch+json') {
      if (existing === undefined) throw apiError(404, 'NotFound', `${path} not found`);
      next = applyJsonPatch(structuredClone(existing), request.body) as Stored;
    } else if (request.contentType === 'application/apply-patch+yaml') {
      const body = request.body as Stored;
      next = status
        ? { ...structuredClone(existing ?? body), status: body.status }
        : { ...body, metadata: { ...body.metadata, uid: existing?.metadata?.uid ?? `uid-${body.metadata?.name}` }, ...(existing?.status === undefined ? {} : { status: existing.status }) };
    } else {
      throw new Error(`the virtual API does not answer ${request.method} ${request.contentType} ${request.path}`);
    }
    if (existing !== undefined && isDeepStrictEqual(withoutVersion(existing), withoutVersion(next))) return existing;
    const generation = existing?.metadata?.generation ?? 1;
    const stored: Stored = {
      ...next,
      metadata: {
        ...next.metadata,
        resourceVersion: String(++this.version),
        generation: existing !== undefined && !isDeepStrictEqual(existing.spec, next.spec) ? generation + 1 : generation,
      },
    };
    const kind = stored.kind ?? existing?.kind ?? '';
    if (stored.metadata?.finalizers?.length === 0 && stored.metadata.deletionTimestamp) {
      this.objects.delete(path);
      this.changes.next({ kind, event: { type: 'deleted', object: structuredClone(stored) } });
    } else {
      this.objects.set(path, stored);
      this.changes.next({ kind, event: { type: existing === undefined ? 'added' : 'modified', object: structuredClone(stored) } });
    }
    return stored;
  }
}

function withoutVersion(object: Stored): Stored {
  const { resourceVersion: _resourceVersion, generation: _generation, ...metadata } = object.metadata ?? {};
  return { ...object, metadata };
}

/** The path of a Website. */
export function websitePath(namespace: string, name: string): string {
  return `/apis/${WEBSITE_GROUP}/v1alpha1/namespaces/${namespace}/websites/${name}`;
}
