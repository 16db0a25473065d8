/**
 * A Lease store scripted by hand, for the leader-election properties only: kube-apiserver's answers for one Lease
 * (404, AlreadyExists, resourceVersion Conflict, validation), a latency per request, and faults per candidate.
 *
 * Kept because of what the properties cost: each runs 150 elections of three candidates over 150 s of virtual time,
 * and an election over the virtual cluster (`VirtualLeaseServer`) takes 5 to 8 times as long as over this store, which
 * would make each property a minute long. Every other leader-election spec runs on the virtual cluster.
 */
import { Observable, type SchedulerLike } from 'rxjs';
import {
  ApiError,
  TransportError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from '../../src/transport/index.js';
import type { LeaseObject } from '../../src/leader/index.js';
import { LeaseServer } from './lease-server.js';

const COLLECTION = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

export class ScriptedLeaseServer extends LeaseServer {
  private stored: LeaseObject | undefined;
  private version = 100;

  constructor(
    private readonly scheduler: SchedulerLike,
    /** Per candidate, the time a request takes; the server applies it at the end. */
    private readonly latency: (candidate: string) => number = () => 10,
  ) {
    super();
  }

  lease(): LeaseObject | undefined {
    return this.stored === undefined ? undefined : structuredClone(this.stored);
  }

  put(lease: LeaseObject): void {
    this.stored = {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, name: 'lock', namespace: 'default', resourceVersion: String(++this.version) },
    };
  }

  transport(candidate: string): Transport {
    const refuse = (what: string): Observable<never> =>
      new Observable((subscriber) => subscriber.error(new Error(`unexpected ${what}`)));
    return {
      get: () => refuse('get'),
      watch: () => refuse('watch'),
      request: (request) => this.serve(candidate, request),
    };
  }

  private serve(candidate: string, request: TransportRequest): Observable<TransportResponse> {
    return new Observable<TransportResponse>((subscriber) => {
      const fault = this.nextFault(candidate);
      let answered = false;
      const abort = (): void => {
        if (!answered)
          this.log.push({ at: this.scheduler.now(), candidate, method: request.method, outcome: 'aborted' });
      };
      if (fault === 'hang') return abort;
      const delay = typeof fault === 'object' ? fault.delay : 0;
      const action = this.scheduler.schedule(() => {
        answered = true;
        const at = this.scheduler.now();
        if (fault === 'network') {
          this.log.push({ at, candidate, method: request.method, outcome: 'network' });
          subscriber.error(new TransportError('NetworkError', `${request.method} ${request.path}: connection refused`));
          return;
        }
        if (typeof fault === 'number') {
          this.log.push({ at, candidate, method: request.method, outcome: String(fault) });
          subscriber.error(new ApiError(fault, fault === 403 ? 'Forbidden' : 'InternalError', `injected ${fault}`));
          return;
        }
        try {
          const body = this.apply(request);
          const spec = request.method === 'GET' ? undefined : (body as LeaseObject).spec;
          this.log.push({
            at,
            candidate,
            method: request.method,
            outcome: 'ok',
            ...(spec === undefined ? {} : { spec }),
          });
          if (fault === 'lostAnswer') subscriber.error(new TransportError('ConnectionClosed', 'response lost'));
          else {
            subscriber.next({ status: 200, body, headers: {}, warnings: this.warnings });
            subscriber.complete();
          }
        } catch (error) {
          this.log.push({ at, candidate, method: request.method, outcome: String((error as ApiError).code) });
          subscriber.error(error);
        }
      }, this.latency(candidate) + delay);
      return () => {
        abort();
        action.unsubscribe();
      };
    });
  }

  private apply(request: TransportRequest): unknown {
    const body = request.body as LeaseObject | undefined;
    switch (request.method) {
      case 'GET':
        if (request.path !== `${COLLECTION}/lock`) throw new Error(`unexpected GET ${request.path}`);
        if (this.stored === undefined)
          throw new ApiError(404, 'NotFound', 'leases.coordination.k8s.io "lock" not found');
        return structuredClone(this.stored);
      case 'POST':
        if (request.path !== COLLECTION) throw new Error(`unexpected POST ${request.path}`);
        if (this.stored !== undefined)
          throw new ApiError(409, 'AlreadyExists', 'leases.coordination.k8s.io "lock" already exists');
        return this.store(body!);
      case 'PUT':
        if (request.path !== `${COLLECTION}/lock`) throw new Error(`unexpected PUT ${request.path}`);
        if (this.stored === undefined)
          throw new ApiError(404, 'NotFound', 'leases.coordination.k8s.io "lock" not found');
        if (body?.metadata.resourceVersion !== this.stored.metadata.resourceVersion) {
          throw new ApiError(
            409,
            'Conflict',
            'Operation cannot be fulfilled on leases.coordination.k8s.io "lock": the object has been modified',
          );
        }
        return this.store(body!);
      default:
        throw new Error(`unexpected ${request.method} ${request.path}`);
    }
  }

  private store(lease: LeaseObject): LeaseObject {
    const duration = lease.spec?.leaseDurationSeconds;
    if (typeof duration === 'number' && duration <= 0)
      throw new ApiError(422, 'Invalid', 'spec.leaseDurationSeconds: must be greater than 0');
    this.put(lease);
    return structuredClone(this.stored!);
  }
}
