/**
 * The PodSet controller: seed 002's "desired state versus actual state" loop, as kube-controller-manager's
 * ReplicaSet controller runs it, in an rxkube pipeline.
 *
 * The seed's controller is an informer whose handlers put keys on a rate-limited work queue, workers that take keys
 * off it and call a sync handler reading the informer's indexer, and `handleErr` retrying failures. The ReplicaSet
 * controller is that loop with two informers (ReplicaSets and Pods, the Pods indexed by owner), expectations in the
 * Pod handlers, and a sync that creates and deletes Pods. Here the informers come from an `informerFactory` (or the
 * manager's), the handlers are `toKeys` and `mapKeys(podEventKeys)`, the queue, workers and `handleErr` are the
 * `reconcile` operator, and the sync is `syncPodSet`.
 *
 * It runs standalone (`replicaSet`) or as a controller of a manager (`replicaSetController`, what
 * `npm run example -- replica-set` runs), with the same printed lines.
 * @module
 */
import type { V1Pod } from '@kubernetes/client-node';
import {
  combineLatest,
  defer,
  filter,
  finalize,
  map,
  merge,
  Observable,
  Subject,
  take,
  takeUntil,
  tap,
  type SchedulerLike,
} from 'rxjs';
import {
  informerFactory,
  mapKeys,
  ownWrites,
  reconcile,
  resourceClient,
  toKeys,
  wallClockNow,
  type Connection,
  type ContextReconcile,
  type EventRecorder,
  type Informer,
  type InformerFactory,
  type ControllerDefinition,
  type ReconcileEvent,
} from '../../src/index.js';
import { monotonicScheduler, type EventReport } from '../../src/extend.js';
import { messageOf, watchErrorLines } from '../shared/health.js';
import { Expectations } from './expectations.js';
import {
  resolveOptions,
  type ReplicaSetControllerOptions,
  type ReplicaSetOptions,
  type ReplicaSetSettings,
} from './options.js';
import { POD_OWNER_INDEX, podEventKeys, podOwnerIndex } from './pod-events.js';
import { POD, PODSET, type PodSet } from './podset.js';
import { syncPodSet } from './sync-podset.js';

/** The name of the controller under a manager: the `controller` label of its metrics and logs. */
export const REPLICA_SET_CONTROLLER = 'podsets';

/**
 * Runs the PodSet controller. Subscribing starts the watches and the workers; unsubscribing stops both at once;
 * `stop$` drains the syncs in flight, then completes. The returned stream is the controller's
 * {@link ReconcileEvent}s, for metrics or tests.
 *
 * `connection` is where it writes (a `KubeConfig`, or any `Transport`); it watches there too, unless
 * `options.informers` gives the informers.
 *
 * # Guarantees
 * - The sync guarantees of `syncPodSet`: Pods created and deleted to match `spec.replicas`, never before the
 *   expectations of earlier syncs are met, in slow-start batches, ranked for deletion, with status written through
 *   the status subresource only when it changes.
 * - A PodSet is never synced twice at once; triggers for a waiting PodSet coalesce; nothing runs before both caches
 *   have synced (`WaitForCacheSync`), which one `PodSet and Pod caches synced; starting workers` line announces.
 * - A failed sync prints `sync "<key>" failed with <error>` and is retried with the operator's backoff (5 ms
 *   doubling, capped at 1000 s), without limit, as the Go controller's `AddRateLimited`.
 * - Connection failures print one `Error watching podsets` or `Error watching pods` line each, with the retry
 *   delay, until the watch is up; a missing CRD is one of them, retried until it is installed.
 * - Every Event about a PodSet that the recorder fails to write or drops prints a line: none is lost silently.
 * - Throws at once (not on subscription) for invalid options; see `resolveOptions`.
 *
 * # Caveats
 * - Watching every namespace (the default) caches every Pod of the cluster, as kube-controller-manager does.
 */
export function replicaSet(connection: Connection, options: ReplicaSetOptions = {}): Observable<ReconcileEvent> {
  const settings = resolveOptions(options);
  const timing = {
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.random ? { random: options.random } : {}),
  };
  return defer(() => {
    // The informers' backoff jitter draws from `random` too: with a seeded one, a run in virtual time is one run.
    const informers = options.informers ?? informerFactory(connection, timing);
    // What this controller writes, as a controller context's clients tell `context.writes`.
    const writes = ownWrites.ledger(options.scheduler ? { scheduler: options.scheduler } : {});
    const writing = { fieldManager: settings.fieldManager, writeObserver: writes, ...timing };
    return podSetPipeline({
      settings,
      ...watch(informers, settings),
      operator: reconcile,
      recorder: options.recorder,
      writes,
      podClient: resourceClient<V1Pod>(connection, POD, writing),
      podSetClient: resourceClient<PodSet>(connection, PODSET, { ...writing, statusSubresource: true }),
      ...(options.stop$ ? { stop$: options.stop$ } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  });
}

/**
 * The PodSet controller as a controller of a manager (named {@link REPLICA_SET_CONTROLLER}): the same lines and
 * guarantees as {@link replicaSet}, over the manager's shared informers, writing through the manager's connection
 * and recording Events with the manager's recorder; the manager's graceful stop drains it, and the manager measures
 * and logs every sync.
 *
 * # Guarantees
 * - It needs leadership: on a standby replica both caches are warm, but nothing is synced, created or deleted until
 *   it leads; losing leadership aborts the requests in flight (their creations are taken off the expectations).
 * - Under a sharded manager (`--shard-ranges`) it needs no leadership: it syncs the PodSets of the hash ranges this
 *   replica holds (their uids read from its PodSet cache, or their namespaces), and a range that moves aborts its
 *   syncs here before another replica starts them.
 * - Throws at once (when the controller is defined) for invalid options; see `resolveOptions`.
 *
 * # Caveats
 * - Expectations live in the process: a new leader starts without them and counts from its freshly synced cache.
 */
export function replicaSetController(options: ReplicaSetControllerOptions = {}): ControllerDefinition {
  const settings = resolveOptions(options);
  return {
    name: REPLICA_SET_CONTROLLER,
    start: (context) => {
      const timing = { fieldManager: settings.fieldManager, ...(options.random ? { random: options.random } : {}) };
      const informers = watch(context.informers, settings);
      const run$ = podSetPipeline({
        settings,
        ...informers,
        operator: context.reconcile,
        recorder: context.recorder,
        writes: context.writes,
        // The context's clients tell `context.writes` what they write.
        podClient: context.client<V1Pod>(POD, timing),
        podSetClient: context.client<PodSet>(PODSET, { ...timing, statusSubresource: true }),
        scheduler: context.scheduler,
      });
      // Sharded by uid (`--shard-ranges`), the gate reads the PodSets' uids from their cache, until the syncs end.
      const shards = context.shards;
      if (shards === undefined) return run$;
      const done$ = new Subject<void>();
      return merge(run$.pipe(finalize(() => done$.next())), shards.primary(informers.podSets).pipe(takeUntil(done$)));
    },
  };
}

/** The two informers: PodSets, and Pods with the owner index (declared before anything subscribes). */
function watch(
  informers: InformerFactory,
  settings: ReplicaSetSettings,
): { readonly podSets: Informer<PodSet>; readonly pods: Informer<V1Pod> } {
  const scope = settings.namespace === undefined ? {} : { namespace: settings.namespace };
  return {
    podSets: informers.for<PodSet>(PODSET, scope),
    pods: informers.for<V1Pod>(POD, { ...scope, indexers: { [POD_OWNER_INDEX]: podOwnerIndex } }),
  };
}

/** What one controller pipeline is built from. */
interface PipelineParts {
  readonly settings: ReplicaSetSettings;
  readonly podSets: Informer<PodSet>;
  readonly pods: Informer<V1Pod>;
  readonly podClient: ReturnType<typeof resourceClient<V1Pod>>;
  readonly podSetClient: ReturnType<typeof resourceClient<PodSet>>;
  readonly recorder: EventRecorder | undefined;
  /** What the two clients wrote: read-your-own-writes waits on it, and the PodSet echoes of it are dropped. */
  readonly writes: ownWrites.OwnWrites;
  /** Plain `reconcile`, or a manager context's (which adds leadership, the manager's stop and metrics). */
  readonly operator: ContextReconcile;
  readonly stop$?: Observable<unknown>;
  readonly scheduler?: SchedulerLike;
}

/** The controller itself: the handlers, the queue and workers, the sync, and the lines about all of it. */
function podSetPipeline(parts: PipelineParts): Observable<ReconcileEvent> {
  const { settings, podSets, pods, recorder } = parts;
  const { print } = settings;
  const clock = parts.scheduler ?? monotonicScheduler;
  // Expectations time out on a duration; condition times and the deletion ranking meet the API server's timestamps.
  const now = (): number => wallClockNow(clock);
  print('Starting PodSet controller');
  const expectations = new Expectations(() => clock.now(), settings.expectationsTimeoutMs);
  const synced$ = combineLatest([podSets.synced$, pods.synced$]).pipe(
    map(([podSetsSynced, podsSynced]) => podSetsSynced && podsSynced),
  );
  const context = {
    expectations,
    pods,
    podSets,
    recorder,
    now,
    print,
    podClient: parts.podClient,
    podSetClient: parts.podSetClient,
    burstReplicas: settings.burstReplicas,
  };
  const ryow = settings.readYourWrites !== false;
  const scope = settings.namespace === undefined ? {} : { namespace: settings.namespace };
  // A sync waits until both caches show what the PodSet's last sync wrote (its Pods, its status), for up to 5 s.
  const readiness = ryow
    ? ownWrites.readYourWrites(
        parts.writes,
        [
          { resource: PODSET, informer: podSets, ...scope },
          { resource: POD, informer: pods, ...scope },
        ],
        {
          primary: PODSET,
          ...(settings.readYourWrites === undefined ? {} : { maxWait: settings.readYourWrites }),
          ...(parts.scheduler ? { scheduler: parts.scheduler } : {}),
        },
      )
    : undefined;
  const controller$ = merge(
    // `addRS`, `updateRS`, `deleteRS`: every change of a PodSet, and its resyncs, wake it up; the echo of its own
    // status write does not (with read-your-own-writes).
    podSets.events$.pipe(ryow ? ownWrites.ignore(parts.writes, PODSET) : (events$) => events$, toKeys()),
    // `addPod`, `updatePod`, `deletePod`: expectations lowered, then the owner woken up.
    pods.events$.pipe(mapKeys((event) => podEventKeys(event, context))),
  ).pipe(
    parts.operator((request) => syncPodSet(request, context), {
      lookup: podSets,
      gate: synced$,
      concurrency: settings.workers,
      ...(readiness === undefined ? {} : { readiness }),
      ...(parts.stop$ ? { stop$: parts.stop$ } : {}),
      ...(parts.scheduler ? { scheduler: parts.scheduler } : {}),
    }),
    tap((event) => printOutcome(event, print)),
  );
  const run$ = new Observable<ReconcileEvent>((subscriber) => {
    // Health lines first, so they come before anything the workers print.
    const subscription = merge(
      synced$.pipe(
        filter(Boolean),
        take(1),
        tap(() => print('PodSet and Pod caches synced; starting workers')),
      ),
      watchErrorLines(podSets, 'podsets', print),
      watchErrorLines(pods, 'pods', print),
    ).subscribe();
    if (recorder !== undefined)
      subscription.add(recorder.reports$.subscribe((report) => printLostEvent(report, print)));
    subscription.add(controller$.subscribe(subscriber));
    return subscription;
  });
  return run$.pipe(finalize(() => print('Shutting down PodSet controller')));
}

/** The Go worker's `HandleError(fmt.Errorf("sync %q failed with %v", key, err))`; rxkube adds when the retry comes. */
function printOutcome(event: ReconcileEvent, print: (line: string) => void): void {
  if (event.type === 'failed') print(`sync ${JSON.stringify(event.key)} failed with ${messageOf(event.error)}`);
  else if (event.type === 'retrying')
    print(`Retrying PodSet ${event.key} in ${event.delayMs} ms (failure ${event.failures})`);
  else if (event.type === 'rejected') print(`Rejected trigger: ${event.error.message}`);
}

/** A line for an Event about a PodSet that was not written; other reports (and other controllers' Events) print nothing. */
function printLostEvent(report: EventReport, print: (line: string) => void): void {
  if (report.type !== 'failed' && report.type !== 'dropped') return;
  const { event } = report;
  if (event.regarding.kind !== PODSET.kind) return;
  const why = report.type === 'failed' ? messageOf(report.error) : `dropped (${report.reason})`;
  print(`Event ${event.reason} for PodSet ${event.regarding.namespace}/${event.regarding.name} not written: ${why}`);
}
