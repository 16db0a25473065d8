/**
 * A small cluster in virtual time for the PodSet controller's marble specs: it answers the controller's Pod creates
 * and deletes and its PodSet status patches after `answerMs`, and feeds the informers the resulting watch events
 * `cacheLagMs` after each write, which is the window expectations exist for. A spec drives it (creates, scales and
 * deletes PodSets, deletes Pods by hand) at virtual times, and reads one timeline of requests and lines.
 * @module
 */
import { KubeConfig, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { concat, defer, from, Observable, Subject, throwError, timer, map, type SchedulerLike } from 'rxjs';
import { informerFactory, type ApiError, type InformerFactory } from '../../src/index.js';
import { type Transport, type TransportRequest, type TransportResponse, type WatchEvent } from '../../src/extend.js';
import { applyJsonPatch } from '../../src/testing/apiserver/patch/index.js';
import { apiError } from '../../spec/client/support/scripted-transport.js';
import { PODSET, type PodSet } from './podset.js';

/** Options of {@link virtualCluster}. */
export interface VirtualClusterOptions {
  readonly scheduler: SchedulerLike;
  /** How long the server takes to answer a request, ms. Default 1. */
  readonly answerMs?: number;
  /** How long after a write its watch event reaches the Pod informer, ms. Default 10. */
  readonly cacheLagMs?: number;
  /** How long after a write its watch event reaches the PodSet informer, ms. Default `cacheLagMs`. */
  readonly podSetLagMs?: number;
  /** Decides the fate of the n-th Pod create (0-based): an error to answer with, or `undefined` to create it. */
  readonly failCreate?: (index: number) => ApiError | undefined;
  /** Writes whose watch events never reach the informers (as if collapsed into a relist), by Pod name. */
  readonly lostPodEvents?: (name: string) => boolean;
}

/** The cluster a marble spec runs the controller against. */
export interface VirtualCluster {
  /** The controller's connection. */
  readonly transport: Transport;
  /** The controller's informers: scripted sources fed by the cluster. */
  readonly informers: InformerFactory;
  /** One timeline: `<time> <METHOD> <path>` for every request; specs push the controller's lines into it too. */
  readonly timeline: string[];
  /** Every Pod create that reached the server, failed ones included. */
  readonly creates: number;
  /** The Pods the server holds, by name. */
  pods(): V1Pod[];
  /** The PodSet the server holds. */
  podSet(name: string): PodSet | undefined;
  /** How many status writes changed the PodSet. */
  readonly statusWrites: number;
  /** Stores a PodSet (create or replace of its spec) as a user would. */
  applyPodSet(podSet: PodSet): void;
  /** Deletes a PodSet (no garbage collector: its Pods stay, as on kube-apiserver alone). */
  deletePodSet(name: string): void;
  /** Marks a PodSet as being deleted (a foreground deletion waiting for its dependents). */
  markPodSetDeleting(name: string): void;
  /** Deletes a Pod as a user would. */
  deletePod(name: string): void;
  /** Reports a Pod Running and Ready (the kubelet). */
  readyPod(name: string): void;
}

const NAMESPACE = 'default';
const PODS = `/api/v1/namespaces/${NAMESPACE}/pods`;
const PODSETS = `/apis/${PODSET.apiVersion}/namespaces/${NAMESPACE}/podsets`;

/** A time as the API serves it (a string; client-node's types say `Date`), to the millisecond. */
function time(ms: number): Date {
  return new Date(ms).toISOString() as unknown as Date;
}

/** Builds a virtual cluster; call it inside `TestScheduler.run()`. */
export function virtualCluster(options: VirtualClusterOptions): VirtualCluster {
  const { scheduler } = options;
  const answerMs = options.answerMs ?? 1;
  const lag = options.cacheLagMs ?? 10;
  const podSetLag = options.podSetLagMs ?? lag;
  const timeline: string[] = [];
  const pods = new Map<string, V1Pod>();
  const podSets = new Map<string, PodSet>();
  const podDeltas = new Subject<WatchEvent<V1Pod>>();
  const podSetDeltas = new Subject<WatchEvent<PodSet>>();
  let resourceVersion = 1;
  let creates = 0;
  let statusWrites = 0;

  const commit = <T extends KubernetesObject>(object: T): T => {
    resourceVersion += 1;
    return { ...object, metadata: { ...object.metadata, resourceVersion: String(resourceVersion) } };
  };
  const later = <T extends KubernetesObject>(deltas: Subject<WatchEvent<T>>, delta: WatchEvent<T>): void => {
    scheduler.schedule(() => deltas.next(delta), (deltas as Subject<unknown>) === podDeltas ? lag : podSetLag);
  };
  const podEvent = (delta: WatchEvent<V1Pod>): void => {
    const name = 'object' in delta ? delta.object.metadata?.name ?? '' : '';
    if (!options.lostPodEvents?.(name)) later(podDeltas, delta);
  };
  const answer = (body: unknown): Observable<TransportResponse> => timer(answerMs, scheduler).pipe(map(() => ({ status: 200, body, headers: {} })));
  const refuse = (error: ApiError): Observable<TransportResponse> => timer(answerMs, scheduler).pipe(map(() => {
    throw error;
  }));

  const createPod = (body: V1Pod): Observable<TransportResponse> => {
    const index = creates++;
    const failure = options.failCreate?.(index);
    if (failure !== undefined) return refuse(failure);
    const name = `${body.metadata?.generateName ?? ''}p${index}`;
    const pod = commit<V1Pod>({
      ...body,
      metadata: { ...body.metadata, name, uid: `uid-${name}`, creationTimestamp: time(scheduler.now()) },
      status: { phase: 'Pending' },
    });
    pods.set(name, pod);
    podEvent({ type: 'added', object: pod });
    return answer(pod);
  };
  const deletePod = (name: string): Observable<TransportResponse> => {
    const pod = pods.get(name);
    if (pod === undefined) return refuse(apiError(404, 'NotFound', `pods "${name}" not found`));
    pods.delete(name);
    podEvent({ type: 'deleted', object: pod });
    return answer(pod);
  };
  const patchStatus = (name: string, operations: unknown): Observable<TransportResponse> => {
    const stored = podSets.get(name);
    if (stored === undefined) return refuse(apiError(404, 'NotFound', `podsets.examples.rxkube.io "${name}" not found`));
    let patched: PodSet;
    try {
      patched = applyJsonPatch(stored, operations) as PodSet;
    } catch {
      return refuse(apiError(422, 'Invalid', 'the server rejected our request due to an error in our request'));
    }
    // The status subresource changes status only.
    const written = commit<PodSet>({ ...stored, status: patched.status });
    podSets.set(name, written);
    statusWrites += 1;
    later(podSetDeltas, { type: 'modified', object: written });
    return answer(written);
  };

  const request = (req: TransportRequest): Observable<TransportResponse> => defer(() => {
    timeline.push(`${scheduler.now()} ${req.method} ${req.path}`);
    if (req.method === 'POST' && req.path === PODS) return createPod(req.body as V1Pod);
    if (req.method === 'DELETE' && req.path.startsWith(`${PODS}/`)) return deletePod(req.path.slice(PODS.length + 1));
    if (req.method === 'PATCH' && req.path.startsWith(`${PODSETS}/`) && req.path.endsWith('/status')) {
      return patchStatus(req.path.slice(PODSETS.length + 1, -'/status'.length), req.body);
    }
    if (req.method === 'GET' && req.path.startsWith(`${PODSETS}/`)) {
      const stored = podSets.get(req.path.slice(PODSETS.length + 1));
      return stored ? answer(stored) : refuse(apiError(404, 'NotFound', 'podsets not found'));
    }
    return throwError(() => new Error(`the virtual cluster does not serve ${req.method} ${req.path}`));
  });
  const transport: Transport = {
    get: (path) => (path === `/apis/${PODSET.apiVersion}`
      ? answer({ resources: [{ name: 'podsets', kind: 'PodSet', namespaced: true }, { name: 'podsets/status', kind: 'PodSet', namespaced: true }] }).pipe(map((response) => response.body))
      : throwError(() => new Error(`the virtual cluster does not serve GET ${path}`))),
    watch: () => throwError(() => new Error('the virtual cluster feeds its informers directly')),
    request,
  };

  // A watch starts with a list of what the server holds, then follows its writes.
  const watch = <T extends KubernetesObject>(store: Map<string, T>, deltas: Subject<WatchEvent<T>>): Observable<WatchEvent<T>> => defer(() => concat(
    from<WatchEvent<T>[]>([
      { type: 'relistStarted' },
      ...[...store.values()].map((object) => ({ type: 'listed' as const, object })),
      { type: 'relistDone', resourceVersion: String(resourceVersion) },
    ]),
    deltas,
  ));
  const informers = informerFactory(new KubeConfig(), {
    scheduler,
    source: <T extends KubernetesObject>(resource: { kind: string }) =>
      (resource.kind === 'Pod' ? watch(pods, podDeltas) : watch(podSets, podSetDeltas)) as unknown as Observable<WatchEvent<T>>,
  });

  const userWrite = (name: string, write: (stored: PodSet | undefined) => PodSet): void => {
    const written = commit(write(podSets.get(name)));
    const existed = podSets.has(name);
    podSets.set(name, written);
    later(podSetDeltas, { type: existed ? 'modified' : 'added', object: written });
  };

  return {
    transport, informers, timeline,
    get creates() {
      return creates;
    },
    get statusWrites() {
      return statusWrites;
    },
    pods: () => [...pods.values()],
    podSet: (name) => podSets.get(name),
    applyPodSet: (podSet) => {
      const name = podSet.metadata!.name!;
      // Stored, and watched, with its apiVersion and kind, as kube-apiserver keeps and sends them.
      userWrite(name, (stored) => ({
        ...podSet,
        apiVersion: PODSET.apiVersion,
        kind: PODSET.kind,
        metadata: {
          ...podSet.metadata, namespace: NAMESPACE, uid: stored?.metadata?.uid ?? podSet.metadata?.uid ?? `uid-${name}`,
          generation: (stored?.metadata?.generation ?? 0) + 1,
        },
        ...(stored?.status ? { status: stored.status } : {}),
      }));
    },
    deletePodSet: (name) => {
      const stored = podSets.get(name);
      if (stored === undefined) return;
      podSets.delete(name);
      later(podSetDeltas, { type: 'deleted', object: stored });
    },
    markPodSetDeleting: (name) => userWrite(name, (stored) => ({
      ...stored!, metadata: { ...stored!.metadata, deletionTimestamp: time(scheduler.now()), finalizers: ['foregroundDeletion'] },
    })),
    deletePod: (name) => {
      timeline.push(`${scheduler.now()} user deletes pod ${name}`);
      deletePod(name).subscribe();
    },
    readyPod: (name) => {
      const pod = pods.get(name);
      if (pod === undefined) return;
      const ready = commit<V1Pod>({ ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: time(scheduler.now()) }] } });
      pods.set(name, ready);
      podEvent({ type: 'modified', object: ready });
    },
  };
}
