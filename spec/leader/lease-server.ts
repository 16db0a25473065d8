/**
 * The Lease server of the leader-election specs: a virtual cluster, with a link of its own for each candidate (its
 * latency, its faults), seen through the candidates' Lease requests. kube-apiserver's answers for the Lease (404,
 * AlreadyExists, resourceVersion Conflict, validation) are the in-memory server's; a request is served when it is
 * answered, after its candidate's latency; a spec's fault for a candidate is armed on the cluster just before the
 * request it is meant for.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, type SchedulerLike } from 'rxjs';
import {
  ApiError,
  TransportError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from '../../src/transport/index.js';
import type { LeaseObject } from '../../src/leader/index.js';
import { virtualCluster, type VirtualCluster, type VirtualLink } from '../../src/testing/index.js';

/** How one request of one candidate is treated, besides being served. */
export type Fault =
  /** Served normally (a placeholder in a {@link VirtualLeaseServer.failNext} sequence). */
  | 'ok'
  /** Fails with a network error after the latency; nothing is applied. */
  | 'network'
  /** Applied, but the answer is lost (a network error after the write landed). */
  | 'lostAnswer'
  /** Never answers; nothing is applied. */
  | 'hang'
  /** Fails with this HTTP status. */
  | number
  /** Served normally, `delay` ms later than the latency: the read or write happens when it is answered. */
  | { readonly delay: number };

/** One Lease request the server saw, in order of answer (its `at` is when it was answered or cut). */
export interface Served {
  readonly at: number;
  readonly candidate: string;
  readonly method: string;
  readonly outcome: string;
  /** The spec stored by a successful write. */
  readonly spec?: LeaseObject['spec'];
}

/**
 * What the leader-election specs drive a Lease server with: the faults per candidate and the log of what it served
 * are kept here; how a request is served is the server's.
 */
export abstract class LeaseServer {
  readonly log: Served[] = [];
  /** The API warnings every successful Lease write carries. */
  warnings: readonly string[] = [];
  private readonly standing = new Map<string, Fault>();
  private readonly queued = new Map<string, Fault[]>();

  /** The stored Lease (a copy), if any. */
  abstract lease(): LeaseObject | undefined;
  /** Stores `lease` directly, as another writer would (a new resourceVersion). */
  abstract put(lease: LeaseObject): void;
  /** The transport candidate `name` talks through. */
  abstract transport(candidate: string): Transport;

  /** Every request of `candidate` from now on meets `fault`, until {@link heal}. */
  cut(candidate: string, fault: Fault = 'network'): void {
    this.standing.set(candidate, fault);
  }

  heal(candidate: string): void {
    this.standing.delete(candidate);
  }

  /** The next requests of `candidate` meet these faults, one each, in order. */
  failNext(candidate: string, ...faults: Fault[]): void {
    this.queued.set(candidate, [...(this.queued.get(candidate) ?? []), ...faults]);
  }

  /** The writes that succeeded, as `"<at> <candidate> <holder>"`. */
  writes(): string[] {
    return this.log.filter((s) => s.spec !== undefined).map((s) => `${s.at} ${s.candidate} ${s.spec!.holderIdentity}`);
  }

  /** The fault the next request of `candidate` meets (taking it from the queue), if any. */
  protected nextFault(candidate: string): Fault | undefined {
    return this.queued.get(candidate)?.shift() ?? this.standing.get(candidate);
  }
}

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;
const COLLECTION = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

export class VirtualLeaseServer extends LeaseServer {
  readonly cluster: VirtualCluster;
  private readonly links = new Map<string, VirtualLink>();
  /** The extra delay of the request a candidate is about to send. */
  private readonly delays = new Map<string, number>();

  constructor(
    private readonly scheduler: SchedulerLike,
    /** Per candidate, the time a request takes; the server applies it at the end. */
    private readonly latency: (candidate: string) => number = () => 10,
  ) {
    super();
    this.cluster = virtualCluster({ scheduler });
  }

  lease(): LeaseObject | undefined {
    return this.cluster.list(LEASE, 'default').find((lease) => lease.metadata?.name === 'lock') as
      | LeaseObject
      | undefined;
  }

  put(lease: LeaseObject): void {
    const stored = this.lease();
    const object = {
      ...LEASE,
      ...structuredClone(lease),
      metadata: {
        ...lease.metadata,
        name: 'lock',
        namespace: 'default',
        ...(stored ? { resourceVersion: stored.metadata.resourceVersion } : {}),
      },
    } as KubernetesObject;
    if (stored === undefined) this.cluster.seed([object]);
    else this.cluster.update([object]);
  }

  /** The transport candidate `name` talks through: its Lease requests meet its faults; any other request goes through. */
  transport(candidate: string): Transport {
    const link = this.linkOf(candidate);
    return {
      get: (path, query, options) => link.get(path, query, options),
      watch: (path, query, options) => link.watch(path, query, options),
      request: (request) =>
        request.path.startsWith(COLLECTION) ? this.serve(candidate, link, request) : link.request(request),
    };
  }

  private linkOf(candidate: string): VirtualLink {
    let link = this.links.get(candidate);
    if (link === undefined) {
      link = this.cluster.link({
        userAgent: candidate,
        latency: () => this.latency(candidate) + (this.delays.get(candidate) ?? 0),
      });
      this.links.set(candidate, link);
    }
    return link;
  }

  private serve(candidate: string, link: VirtualLink, request: TransportRequest): Observable<TransportResponse> {
    return new Observable<TransportResponse>((subscriber) => {
      const fault = this.nextFault(candidate);
      let answered = false;
      const record = (outcome: string, spec?: LeaseObject['spec']): void => {
        answered = true;
        this.log.push({
          at: this.scheduler.now(),
          candidate,
          method: request.method,
          outcome,
          ...(spec === undefined ? {} : { spec }),
        });
      };
      this.arm(candidate, link, fault, request.method);
      const written = (body: unknown): LeaseObject['spec'] | undefined =>
        request.method === 'GET' ? undefined : (body as LeaseObject).spec;
      const subscription = link.request(request).subscribe({
        next: (response) => {
          record('ok', written(response.body));
          subscriber.next(response);
          subscriber.complete();
        },
        error: (error: unknown) => {
          if (fault === 'lostAnswer' && error instanceof TransportError && error.reason === 'ConnectionClosed') {
            // The server answered; what it answered is in its request log.
            const code =
              this.cluster.requestLog
                .records()
                .filter((r) => r.userAgent === candidate)
                .at(-1)?.code ?? 0;
            if (code >= 200 && code < 300) record('ok', written(request.body));
            else record(String(code));
          } else
            record(
              error instanceof ApiError
                ? String(error.code)
                : error instanceof TransportError && error.reason === 'NetworkError'
                  ? 'network'
                  : String(error),
            );
          subscriber.error(error);
        },
      });
      this.delays.delete(candidate);
      return () => {
        if (!answered)
          this.log.push({ at: this.scheduler.now(), candidate, method: request.method, outcome: 'aborted' });
        subscription.unsubscribe();
      };
    });
  }

  /** Arms `fault` (and the warnings of a write) on the cluster for the request `candidate` is about to send. */
  private arm(candidate: string, link: VirtualLink, fault: Fault | undefined, method: string): void {
    if (fault === 'network') link.faults.refuseNext();
    else if (fault === 'hang') link.faults.hangNext();
    else if (fault === 'lostAnswer') link.faults.loseAnswerNext();
    else if (typeof fault === 'number') this.cluster.faults.failNext({ status: fault, message: `injected ${fault}` });
    else if (typeof fault === 'object') this.delays.set(candidate, fault.delay);
    // Warnings go with answers the server gives (a refused, hung or failed request has none here).
    const answered = fault === undefined || fault === 'ok' || fault === 'lostAnswer' || typeof fault === 'object';
    if (answered && method !== 'GET') for (const text of this.warnings) this.cluster.faults.warnNext({ text });
  }
}
