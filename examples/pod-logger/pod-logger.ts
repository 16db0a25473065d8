/**
 * The pod logger: client-go's workqueue example (the seed controller) as an rxkube pipeline, standalone
 * (`podLogger`) or as a controller of a manager (`podLoggerController`, what `npm start` runs).
 *
 * It watches pods in one namespace and, for each key, reads the latest pod from the informer's store:
 * - present: prints `Sync/Add/Update for Pod <name>`;
 * - absent: prints `Pod <namespace>/<name> does not exist anymore`;
 * - on error: prints `Error syncing pod <key>: <error>` and retries with the default per-key backoff, and after 5
 *   retries prints `Dropping pod "<key>" out of the queue: <error>`, exactly as the Go controller does.
 * @module
 */
import type { V1Pod } from '@kubernetes/client-node';
import { defer, finalize, Observable, tap, type SchedulerLike } from 'rxjs';
import {
  informer, reconcile, toKeys, type Connection, type ContextReconcile, type Informer, type ManagedController, type ReconcileEvent, type ReconcileRequest,
} from '../../src/index.js';
import { healthLines, messageOf } from '../shared/health.js';

/** The annotation the demo uses to make a pod's reconcile fail: a count of failing attempts, or `always`. */
export const FAIL_ANNOTATION = 'demo.rxkube.io/fail-attempts';

/** The annotation the demo uses to make a pod's reconcile take a while: milliseconds (it stops early if aborted). */
export const SLEEP_ANNOTATION = 'demo.rxkube.io/sleep-ms';

/** The seed's retry budget: `NumRequeues(key) < 5` retries, then drop. */
export const MAX_RETRIES = 5;

/** Options of {@link podLogger}. */
export interface PodLoggerOptions {
  /** Namespace to watch. Default `default`. */
  readonly namespace?: string;
  /** Where the controller's lines go. Default `console.log`. */
  readonly print?: (line: string) => void;
  /** Stops intake and drains in-flight reconciles, then the stream completes. */
  readonly stop$?: Observable<unknown>;
  /** Scheduler for every delay (tests use virtual time). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Uniform samples in [0, 1) for the watch's jitter and timeout choice (tests pass a seeded one). Default `Math.random`. */
  readonly random?: () => number;
  /** Replaces the pod informer, e.g. one fed by a scripted source in tests. */
  readonly pods?: Informer<V1Pod>;
}

/**
 * The seed's `syncToStdout`: a level-triggered look at the latest state of one key.
 *
 * The demo's failure injection lives here, not in the operator: a pod annotated with {@link FAIL_ANNOTATION} fails
 * its first N attempts (or every attempt for `always`), which shows retries, backoff and dropping at work; one
 * annotated with {@link SLEEP_ANNOTATION} works that long first (`Working on Pod <name> for <ms> ms`), which shows a
 * graceful shutdown waiting for it, and stops early if its signal is aborted.
 */
export function syncToStdout(request: ReconcileRequest<V1Pod>, print: (line: string) => void): void | Promise<void> {
  const pod = request.object;
  if (pod === undefined) {
    print(`Pod ${request.key} does not exist anymore`);
    return;
  }
  const failAttempts = pod.metadata?.annotations?.[FAIL_ANNOTATION];
  if (failAttempts === 'always' || (failAttempts !== undefined && request.attempt <= Number(failAttempts))) {
    throw new Error(`simulated failure of attempt ${request.attempt} (annotation ${FAIL_ANNOTATION}=${failAttempts})`);
  }
  const sleepMs = Number(pod.metadata?.annotations?.[SLEEP_ANNOTATION] ?? 0);
  if (!(sleepMs > 0)) {
    print(`Sync/Add/Update for Pod ${pod.metadata?.name}`);
    return;
  }
  print(`Working on Pod ${pod.metadata?.name} for ${sleepMs} ms`);
  const { signal } = request;
  return new Promise<void>((resolve, reject) => {
    const done = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      print(`Sync/Add/Update for Pod ${pod.metadata?.name}`);
      resolve();
    }, sleepMs);
    const abort = (): void => {
      clearTimeout(done);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Runs the pod logger on `connection` (a KubeConfig, or any Transport such as a virtual cluster). Subscribing starts
 * the watch and the workers; unsubscribing stops both at once; `stop$` drains gracefully. The returned stream is the
 * controller's {@link ReconcileEvent}s, for metrics or tests.
 *
 * # Guarantees
 * - One pod key is never synced concurrently with itself; triggers for a waiting key are coalesced.
 * - Nothing is synced before the informer has synced (`WaitForCacheSync` in the seed); a `Pod cache synced` line
 *   says when it has.
 * - A cluster that cannot be reached or refuses us is never silent: each distinct connection error prints one
 *   `Error watching pods` line with the retry delay, until the watch is up again.
 * - Each failure prints one `Error syncing pod` line with the delay of its retry until the sixth consecutive
 *   failure, which prints one `Dropping pod` line instead; the key's failure count then resets, as `queue.Forget`
 *   does in the seed.
 */
export function podLogger(connection: Connection | undefined, options: PodLoggerOptions = {}): Observable<ReconcileEvent> {
  const print = options.print ?? ((line: string) => console.log(line));
  return defer(() => {
    const pods = options.pods ?? informer<V1Pod>(requireConnection(connection), { apiVersion: 'v1', kind: 'Pod' }, {
      namespace: options.namespace ?? 'default',
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
    return podPipeline(pods, print, reconcile, {
      ...(options.stop$ ? { stop$: options.stop$ } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  });
}

/**
 * The pod logger as a controller of a manager (named `pods`): the same lines and guarantees as {@link podLogger},
 * with the manager's shared informers, leadership gate, graceful stop and metrics. It needs leadership: on a
 * standby replica the cache is warm and `Pod cache synced` is printed, but nothing is synced until it leads.
 */
export function podLoggerController(options: Pick<PodLoggerOptions, 'namespace' | 'print'> = {}): ManagedController {
  const print = options.print ?? ((line: string) => console.log(line));
  return {
    name: 'pods',
    start: (context) => podPipeline(
      context.informers.for<V1Pod>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: options.namespace ?? 'default' }), print, context.reconcile, {},
    ),
  };
}

/** The controller itself, over `pods`, with `operator` (plain `reconcile`, or a manager context's). */
function podPipeline(
  pods: Informer<V1Pod>, print: (line: string) => void, operator: ContextReconcile,
  options: { readonly stop$?: Observable<unknown>; readonly scheduler?: SchedulerLike },
): Observable<ReconcileEvent> {
  print('Starting Pod controller');
  const controller$ = pods.events$.pipe(
    toKeys(),
    operator((request) => syncToStdout(request, print), { lookup: pods, gate: pods.synced$, maxRetries: MAX_RETRIES, ...options }),
    tap((event) => {
      if (event.type === 'retrying') print(`Error syncing pod ${event.key}: ${messageOf(event.error)} (retrying in ${event.delayMs} ms)`);
      else if (event.type === 'dropped') print(`Dropping pod "${event.key}" out of the queue: ${messageOf(event.error)}`);
      else if (event.type === 'rejected') print(`Rejected trigger: ${event.error.message}`);
    }),
  );
  // The health lines are subscribed first, so they come before anything the workers print; they stop when the
  // controller completes (after a drain).
  const run$ = new Observable<ReconcileEvent>((subscriber) => {
    const subscription = healthLines(pods, { kind: 'Pod', plural: 'pods' }, print).subscribe();
    subscription.add(controller$.subscribe(subscriber));
    return subscription;
  });
  return run$.pipe(finalize(() => print('Stopping Pod controller')));
}

function requireConnection(connection: Connection | undefined): Connection {
  if (connection === undefined) throw new TypeError('podLogger: a connection (a KubeConfig or a Transport) is required unless options.pods is given');
  return connection;
}
