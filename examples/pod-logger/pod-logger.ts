/**
 * The pod logger: client-go's workqueue example (the seed controller) as an rxkube controller, written once
 * (`podLogger`) and run unchanged under the manager (`npm start`), alone (`startController`) and in tests
 * (`runController`, `simulate`).
 *
 * It watches pods in one namespace and, for each key, reads the latest pod from the informer's store:
 * - present: prints `Sync/Add/Update for Pod <name>`;
 * - absent: prints `Pod <namespace>/<name> does not exist anymore`;
 * - on error: prints `Error syncing pod <key>: <error>` and retries with the default per-key backoff, and after 5
 *   retries prints `Dropping pod "<key>" out of the queue: <error>`, exactly as the Go controller does.
 * @module
 */
import type { V1Pod } from '@kubernetes/client-node';
import { finalize, Observable, tap } from 'rxjs';
import {
  controller,
  InformerHealthError,
  type ControllerDefinition,
  type ReconcileEvent,
  type ReconcileRequest,
} from '../../src/index.js';
import { healthLines, messageOf } from '../shared/health.js';

/** The annotation the demo uses to make a pod's reconcile fail: a count of failing attempts, or `always`. */
export const FAIL_ANNOTATION = 'demo.rxkube.io/fail-attempts';

/** The annotation the demo uses to make a pod's reconcile take a while: milliseconds (it stops early if aborted). */
export const SLEEP_ANNOTATION = 'demo.rxkube.io/sleep-ms';

/** The seed's retry budget: `NumRequeues(key) < 5` retries, then drop. */
export const MAX_RETRIES = 5;

/** The resource the pod logger watches. */
const POD = { apiVersion: 'v1', kind: 'Pod' };

/** Options of {@link podLogger}. */
export interface PodLoggerOptions {
  /** Namespace to watch. Default `default`. */
  readonly namespace?: string;
  /** Where the controller's lines go. Default `console.log`. */
  readonly print?: (line: string) => void;
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
 * The pod logger, named `pods`: a controller written once against its context. Under the manager it gets the
 * manager's shared informers, leadership gate, graceful stop and metrics (on a standby replica the cache is warm and
 * `Pod cache synced` is printed, but nothing is synced until it leads); alone (`startController(podLogger(), {
 * connection })`) and under the test kit it gets the same context over its own informers, an open gate and `stop$`.
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
export function podLogger(options: PodLoggerOptions = {}): ControllerDefinition {
  const print = options.print ?? ((line: string) => console.log(line));
  const watch = { resource: POD, options: { namespace: options.namespace ?? 'default' } };
  return {
    name: 'pods',
    start: (context) => {
      print('Starting Pod controller');
      const controller$ = controller<V1Pod>({
        context,
        for: watch,
        maxRetries: MAX_RETRIES,
        reconcile: (request) => syncToStdout(request, print),
        // The `Error watching pods` lines below say what an InformerHealthError would.
        onError: (error) => (error instanceof InformerHealthError ? undefined : context.reportError(error)),
      }).pipe(
        tap((event) => {
          if (event.type === 'retrying')
            print(`Error syncing pod ${event.key}: ${messageOf(event.error)} (retrying in ${event.delayMs} ms)`);
          else if (event.type === 'dropped')
            print(`Dropping pod "${event.key}" out of the queue: ${messageOf(event.error)}`);
          else if (event.type === 'rejected') print(`Rejected trigger: ${event.error.message}`);
        }),
      );
      // The health lines are subscribed first, so they come before anything the workers print; they stop when the
      // controller completes (after a drain).
      const run$ = new Observable<ReconcileEvent>((subscriber) => {
        const subscription = healthLines(
          context.informers.for<V1Pod>(watch.resource, watch.options),
          { kind: 'Pod', plural: 'pods' },
          print,
        ).subscribe();
        subscription.add(controller$.subscribe(subscriber));
        return subscription;
      });
      return run$.pipe(finalize(() => print('Stopping Pod controller')));
    },
  };
}
