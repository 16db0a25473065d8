/**
 * The node labeler: the seed's NodeController (seed 001) as an rxkube pipeline, writing through the client layer.
 *
 * The seed watches Nodes with an informer whose Add and Delete handlers print the event and put the node's key on a
 * delaying work queue; workers take keys off it and run `handleNode`, which labels a node that joined the cluster
 * in a particular way (a cloud-provider check) and re-adds the key with `AddAfter(key, 30s)` when it cannot finish.
 * Here the informer is `informer()`, the queue and the workers are the `reconcile` operator, the check is a
 * `spec.providerID` prefix, the label goes on with `mutate`, an Event is recorded with `eventRecorder`, and the
 * 30 s re-check is a `{ requeueAfter: 30_000 }` result.
 *
 * It runs standalone (`nodeLabeler`) or as a controller of a manager (`nodeLabelerController`, what
 * `npm run example -- node-labeler` runs), with the same printed lines.
 * @module
 */
import type { V1Node } from '@kubernetes/client-node';
import { concat, defer, finalize, Observable, tap, type SchedulerLike } from 'rxjs';
import {
  eventRecorder,
  informer,
  predicates,
  rateLimiters,
  reconcile,
  resourceClient,
  toKeys,
  type Connection,
  type ContextReconcile,
  type ControllerDefinition,
  type Informer,
  type ReconcileEvent,
  type ResourceClient,
  type ResourceRef,
} from '../../src/index.js';
import { healthLines, messageOf } from '../shared/health.js';
import { callerEvents, managerEvents, NO_EVENTS, ownEvents, printLostEvent, type LabelerEvents } from './events.js';
import { handleNode } from './handle-node.js';
import {
  DEFAULT_REPORTING_CONTROLLER,
  resolveOptions,
  type NodeLabelerControllerOptions,
  type NodeLabelerOptions,
  type NodeLabelerSettings,
} from './options.js';

/** The resource the labeler watches and writes. */
export const NODE: ResourceRef = Object.freeze({ apiVersion: 'v1', kind: 'Node' });

/** The name of the labeler's controller under a manager: the `controller` label of its metrics and logs. */
export const NODE_LABELER_CONTROLLER = 'nodes';

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
  const timing = {
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.random ? { random: options.random } : {}),
  };
  return defer(() => {
    const nodes = options.nodes ?? informer<V1Node>(connection, NODE, timing);
    const events = options.recorder
      ? callerEvents(options.recorder)
      : ownEvents(
          eventRecorder(connection, {
            reportingController: DEFAULT_REPORTING_CONTROLLER,
            ...(options.reportingInstance ? { reportingInstance: options.reportingInstance } : {}),
            ...timing,
          }),
          settings.print,
        );
    return labelerPipeline({
      settings,
      nodes,
      events,
      operator: reconcile,
      client: resourceClient<V1Node>(connection, NODE, { fieldManager: settings.fieldManager, ...timing }),
      ...(options.stop$ ? { stop$: options.stop$ } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  });
}

/**
 * The node labeler as a controller of a manager (named {@link NODE_LABELER_CONTROLLER}): the same lines and
 * guarantees as {@link nodeLabeler}, over the manager's shared Node informer, writing through the manager's
 * connection and recording with the manager's event recorder; the manager's graceful stop drains it and flushes
 * its Events, and the manager measures and logs every run.
 *
 * # Guarantees
 * - It needs leadership: on a standby replica the cache is warm and `Node cache synced` is printed, but no node is
 *   handled, and nothing is written, until it leads; losing leadership aborts the writes in flight.
 * - Its lost Events (given up, dropped, refused) each print a line, as the standalone labeler's do; other
 *   controllers' Events on the same recorder print nothing.
 * - Throws at once (when the controller is defined) for invalid options; see `resolveOptions`.
 *
 * # Caveats
 * - The Events' `reportingController` is the manager's (`events.reportingController`, by default the manager's
 *   name); pass {@link DEFAULT_REPORTING_CONTROLLER} there to keep the standalone labeler's.
 * - Under a manager with `events: false` it records no Event, and says so when it starts.
 */
export function nodeLabelerController(options: NodeLabelerControllerOptions): ControllerDefinition {
  const settings = resolveOptions(options);
  return {
    name: NODE_LABELER_CONTROLLER,
    start: (context) =>
      labelerPipeline({
        settings,
        nodes: context.informers.for<V1Node>(NODE),
        client: resourceClient<V1Node>(context.connection, NODE, {
          fieldManager: settings.fieldManager,
          scheduler: context.scheduler,
          ...(options.random ? { random: options.random } : {}),
        }),
        events: context.recorder === undefined ? NO_EVENTS : managerEvents(context.recorder),
        operator: context.reconcile,
      }),
  };
}

/** What one labeler pipeline is built from. */
interface LabelerParts {
  readonly settings: NodeLabelerSettings;
  readonly nodes: Informer<V1Node>;
  readonly client: ResourceClient<V1Node>;
  readonly events: LabelerEvents;
  /** Plain `reconcile`, or a manager context's (which adds leadership, the manager's stop and metrics). */
  readonly operator: ContextReconcile;
  readonly stop$?: Observable<unknown>;
  readonly scheduler?: SchedulerLike;
}

/** The controller itself: the seed's handlers, queue and workers, the health lines and the Events' fate. */
function labelerPipeline(parts: LabelerParts): Observable<ReconcileEvent> {
  const { settings, nodes, client, events } = parts;
  const { print } = settings;
  print('Starting node controller');
  if (events.recorder === undefined) print('Recording no Events: the manager has no event recorder (events: false)');
  const controller$ = nodes.events$.pipe(
    // The seed registers AddFunc and DeleteFunc only.
    predicates.eventType('added', 'deleted'),
    tap((event) => {
      print(
        `controller: ${event.type === 'added' ? 'Add' : 'Delete'} event, nodes [${event.object.metadata?.name ?? event.key}]`,
      );
      print(`working queue add node ${event.key}`);
    }),
    toKeys(),
    parts.operator((request) => handleNode(request, { settings, client, store: nodes, recorder: events.recorder }), {
      lookup: nodes,
      gate: nodes.synced$,
      concurrency: settings.workers,
      rateLimiter: rateLimiters.exponential({ maxMs: settings.recheckAfterMs }),
      ...(parts.stop$ ? { stop$: parts.stop$ } : {}),
      ...(parts.scheduler ? { scheduler: parts.scheduler } : {}),
    }),
    tap((event) => printOutcome(event, settings)),
  );
  const run$ = new Observable<ReconcileEvent>((subscriber) => {
    // Health lines first, so they come before anything the workers print.
    const subscription = healthLines(nodes, { kind: 'Node', plural: 'nodes' }, print).subscribe();
    subscription.add(events.lost$.subscribe((report) => printLostEvent(report, print)));
    // After a drain, the Events still queued are written before the stream completes.
    subscription.add(concat(controller$, events.flush$).subscribe(subscriber));
    // Unsubscribed without a drain: abandon what is left at once.
    subscription.add(events.abandon);
    return subscription;
  });
  return run$.pipe(finalize(() => print('Shutting down node controller')));
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
