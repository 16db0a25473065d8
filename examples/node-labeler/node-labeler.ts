/**
 * The node labeler: the seed's NodeController (seed 001) as an rxkube pipeline, writing through the client layer.
 *
 * The seed watches Nodes with an informer whose Add and Delete handlers print the event and put the node's key on a
 * delaying work queue; workers take keys off it and run `handleNode`, which labels a node that joined the cluster
 * in a particular way (a cloud-provider check) and re-adds the key with `AddAfter(key, 30s)` when it cannot finish.
 * Here the informer is `informer()`, the queue and the workers are the `reconcile` operator, the check is a
 * `spec.providerID` prefix, the label goes on with `mutate`, an Event is recorded with `eventRecorder`, and the
 * 30 s re-check is a `{ requeueAfter: 30_000 }` result.
 * @module
 */
import { KubeConfig, type V1Node } from '@kubernetes/client-node';
import { concat, defer, EMPTY, finalize, ignoreElements, Observable, tap } from 'rxjs';
import {
  eventRecorder, eventType, exponentialRateLimiter, informer, reconcile, resourceClient, toKeys, type Connection,
  type EventReport, type ReconcileEvent, type ResourceRef,
} from '../../src/index.js';
import { healthLines, messageOf } from '../shared/health.js';
import { handleNode } from './handle-node.js';
import { DEFAULT_REPORTING_CONTROLLER, resolveOptions, type NodeLabelerOptions, type NodeLabelerSettings } from './options.js';

/** The resource the labeler watches and writes. */
export const NODE: ResourceRef = Object.freeze({ apiVersion: 'v1', kind: 'Node' });

/**
 * Runs the node labeler. Subscribing starts the watch and the workers; unsubscribing stops both at once (and
 * abandons Events not yet written); `stop$` drains the runs in flight, flushes the Events, then completes. The
 * returned stream is the controller's {@link ReconcileEvent}s, for metrics or tests.
 *
 * `connection` is where it writes (a `KubeConfig`, or any `Transport`); it watches there too, unless
 * `options.nodes` gives the informer.
 *
 * # Guarantees
 * - Reacts to what the seed's handlers react to: a node added (the initial list included) or deleted, each printed
 *   as `controller: Add event, nodes [<name>]` / `controller: Delete event, nodes [<name>]`, then
 *   `working queue add node <key>`. A node's later updates do not trigger it; a node waiting for its
 *   `spec.providerID` is re-checked every `recheckAfterMs` instead (see `handleNode`).
 * - One node is never handled twice at once; triggers for a waiting key coalesce; nothing runs before the
 *   informer has synced (`WaitForCacheSync`), which a `Node cache synced` line announces.
 * - A failed run prints `controller: error syncing node, <error>` and is retried with the operator's backoff
 *   (5 ms doubling), capped at `recheckAfterMs`, without limit, as the seed keeps re-adding the key.
 * - Connection failures print one `Error watching nodes` line each, with the retry delay, until the watch is up.
 * - Its own recorder's lost Events (given up, dropped, refused) each print a line: none is lost silently.
 * - Throws at once (not on subscription) for invalid options; see `resolveOptions`.
 *
 * # Caveats
 * - Like the seed, it acts when a node is added, not when one changes: a label someone removes later comes back
 *   only when the node is added again (a restart of the labeler lists every node as added).
 * - Unsubscribing abandons the Events not written yet (each is counted by the recorder); use `stop$` to keep them.
 */
export function nodeLabeler(connection: Connection, options: NodeLabelerOptions): Observable<ReconcileEvent> {
  const settings = resolveOptions(options);
  const { print } = settings;
  const timing = {
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.random ? { random: options.random } : {}),
  };
  return defer(() => {
    const nodes = options.nodes ?? informer<V1Node>(
      connection instanceof KubeConfig ? connection : new KubeConfig(), NODE,
      // The informer takes a KubeConfig; a Transport goes in as its network seam (the KubeConfig is then unused).
      { ...timing, ...(connection instanceof KubeConfig ? {} : { transport: connection }) },
    );
    const client = resourceClient<V1Node>(connection, NODE, { fieldManager: settings.fieldManager, ...timing });
    const recorder = options.recorder ?? eventRecorder(connection, {
      reportingController: DEFAULT_REPORTING_CONTROLLER,
      ...(options.reportingInstance ? { reportingInstance: options.reportingInstance } : {}),
      ...timing,
    });
    const ownRecorder = options.recorder === undefined;

    print('Starting node controller');
    const controller$ = nodes.events$.pipe(
      // The seed registers AddFunc and DeleteFunc only.
      eventType('added', 'deleted'),
      tap((event) => {
        print(`controller: ${event.type === 'added' ? 'Add' : 'Delete'} event, nodes [${event.object.metadata?.name ?? event.key}]`);
        print(`working queue add node ${event.key}`);
      }),
      toKeys(),
      reconcile((request) => handleNode(request, { settings, client, store: nodes, recorder }), {
        lookup: nodes,
        gate: nodes.synced$,
        concurrency: settings.workers,
        rateLimiter: exponentialRateLimiter({ maxMs: settings.recheckAfterMs }),
        ...(options.stop$ ? { stop$: options.stop$ } : {}),
        ...(options.scheduler ? { scheduler: options.scheduler } : {}),
      }),
      tap((event) => printOutcome(event, settings)),
    );
    // After a drain, the Events still queued are written before the stream completes.
    const closeRecorder$ = ownRecorder ? recorder.close().pipe(
      tap((result) => {
        if (!result.complete) print(`Gave up writing ${result.pending} Event(s) at shutdown`);
      }),
      ignoreElements(),
    ) : EMPTY;
    const run$ = new Observable<ReconcileEvent>((subscriber) => {
      // Health lines first, so they come before anything the workers print.
      const subscription = healthLines(nodes, { kind: 'Node', plural: 'nodes' }, print).subscribe();
      if (ownRecorder) subscription.add(recorder.reports$.subscribe((report) => printLostEvent(report, print)));
      subscription.add(concat(controller$, closeRecorder$).subscribe(subscriber));
      // Unsubscribed without a drain: abandon what is left at once (closing twice is harmless).
      if (ownRecorder) subscription.add(() => recorder.close({ timeoutMs: 0 }).subscribe());
      return subscription;
    });
    return run$.pipe(finalize(() => print('Shutting down node controller')));
  });
}

/** The seed's worker prints the error of each failed `handleNode`; rxkube adds when the retry comes. */
function printOutcome(event: ReconcileEvent, settings: NodeLabelerSettings): void {
  const { print } = settings;
  switch (event.type) {
    case 'failed':
      print(`controller: error syncing node, ${messageOf(event.error)}`);
      break;
    case 'retrying':
      print(`Retrying node ${event.key} in ${event.delayMs} ms (failure ${event.failures})`);
      break;
    case 'rejected':
      print(`Rejected trigger: ${event.error.message}`);
      break;
    default:
      break;
  }
}

/** An Event the labeler's own recorder could not write, or refused. */
function printLostEvent(report: EventReport, print: (line: string) => void): void {
  if (report.type === 'rejected') print(`Event refused: ${messageOf(report.error)}`);
  else if (report.type === 'failed') print(`Event ${report.event.reason} for node ${report.event.regarding.name} not written: ${messageOf(report.error)}`);
  else if (report.type === 'dropped') print(`Event ${report.event.reason} for node ${report.event.regarding.name} dropped (${report.reason})`);
}
