/**
 * The seed's `handleNode` and `processNodeAddIntoCluster`: what one run of the node labeler does with one key.
 * @module
 */
import type { V1Node } from '@kubernetes/client-node';
import { catchError, map, of, throwError, type Observable } from 'rxjs';
import {
  apiErrors,
  type EventRecorder,
  type ReconcileRequest,
  type RequeueAfter,
  type ResourceClient,
} from '../../src/index.js';
import { messageOf } from '../shared/health.js';
import type { NodeLabelerSettings } from './options.js';

/** The `reason` of the Normal Event recorded when a node got the label. */
export const LABELED_REASON = 'Labeled';
/** The `reason` of the Warning Event recorded when writing the label failed (the write is retried). */
export const LABEL_FAILED_REASON = 'LabelFailed';
/** The `action` of both Events. */
export const LABEL_ACTION = 'AddLabel';

/**
 * What the labeler makes of a node:
 * - `pending`: no `spec.providerID` yet (a cloud controller sets it after the node registers): look again later;
 * - `foreign`: it joined some other way; `spec.providerID` can only be set once, so this is final;
 * - `labeled`: it matches and already has the label;
 * - `unlabeled`: it matches and needs the label.
 */
export type NodeVerdict = 'pending' | 'foreign' | 'labeled' | 'unlabeled';

/** Judges a node against the settings. */
export function judgeNode(
  node: V1Node,
  settings: Pick<NodeLabelerSettings, 'providerIdPrefix' | 'label'>,
): NodeVerdict {
  const providerID = node.spec?.providerID ?? '';
  if (providerID === '') return 'pending';
  if (!providerID.startsWith(settings.providerIdPrefix)) return 'foreign';
  return node.metadata?.labels?.[settings.label.key] === settings.label.value ? 'labeled' : 'unlabeled';
}

/** What a run needs besides its request. */
export interface NodeHandlerContext {
  readonly settings: NodeLabelerSettings;
  /** The write path of Nodes (`resourceClient`). */
  readonly client: ResourceClient<V1Node>;
  /** The informer: where `mutate` re-reads after a conflict once it has caught up. */
  readonly store: ResourceClient.StoreSource<V1Node>;
  /** Where the Events go; `undefined` records none (a manager with `events: false`). */
  readonly recorder: EventRecorder | undefined;
}

/**
 * One run for one node key, level-triggered: the node as the informer's cache holds it when the run starts.
 *
 * # Guarantees
 * - Deleted (not in the cache, or gone when written): prints `Node has been deleted <key>` and succeeds.
 * - `pending`: prints why and asks for a re-check after `recheckAfterMs` (the seed's `AddAfter(key, 30s)`), which
 *   is not a failure, so it never backs off.
 * - `foreign` or `labeled`: prints why and sends nothing.
 * - `unlabeled`: adds the label with `mutate` (one JSON Patch guarded by the resourceVersion; on a conflict it
 *   re-reads and tries again, as client-go's `retry.RetryOnConflict`), passing the run's `signal`; then records a
 *   Normal Event (when there is a recorder), unless the re-read showed another writer had already set the label.
 * - A write that fails otherwise records a Warning Event and fails the run, so the operator retries it with backoff.
 *
 * # Caveats
 * - A node that keeps no providerID is re-checked forever, one cache read per `recheckAfterMs`, as the seed re-adds
 *   its key forever; deleting the node ends it.
 * - An existing label with another value is overwritten: the labeler owns its label.
 */
export function handleNode(
  request: ReconcileRequest<V1Node>,
  context: NodeHandlerContext,
): undefined | RequeueAfter | Observable<void> {
  const { settings } = context;
  const { print, label, providerIdPrefix } = settings;
  const node = request.object;
  if (node === undefined) {
    print(`Node has been deleted ${request.key}`);
    return undefined;
  }
  const name = node.metadata?.name ?? request.key;
  const providerID = node.spec?.providerID ?? '';
  switch (judgeNode(node, settings)) {
    case 'pending':
      print(`Node ${name} has no spec.providerID yet; re-checking in ${formatDelay(settings.recheckAfterMs)}`);
      return { requeueAfter: settings.recheckAfterMs };
    case 'foreign':
      print(`Node ${name} did not join through ${providerIdPrefix} (providerID ${providerID}); leaving it alone`);
      return undefined;
    case 'labeled':
      print(`Node ${name} already has ${label.key}=${label.value}`);
      return undefined;
    case 'unlabeled':
      return addLabel(node, request, context);
  }
}

/** The seed's `processNodeAddIntoCluster`: the label, written with `mutate`, and an Event saying so. */
function addLabel(node: V1Node, request: ReconcileRequest<V1Node>, context: NodeHandlerContext): Observable<void> {
  const {
    settings: { print, label, providerIdPrefix },
    recorder,
  } = context;
  const name = node.metadata?.name ?? request.key;
  // The recipe runs once per attempt; what its last run saw says whether this write added the label.
  let added = false;
  return context.client
    .mutate(
      node,
      (draft) => {
        const labels = ((draft.metadata ??= {}).labels ??= {});
        added = labels[label.key] !== label.value;
        labels[label.key] = label.value;
      },
      { signal: request.signal, store: context.store },
    )
    .pipe(
      map((written) => {
        if (!added) {
          print(`Node ${name} already has ${label.key}=${label.value} (set by another writer)`);
          return;
        }
        const providerID = written.spec?.providerID ?? '';
        print(`Labeled node ${name} ${label.key}=${label.value} (providerID ${providerID})`);
        recorder?.event(written, {
          type: 'Normal',
          reason: LABELED_REASON,
          action: LABEL_ACTION,
          note: `Added label ${label.key}=${label.value}: providerID ${providerID} starts with ${providerIdPrefix}`,
        });
      }),
      catchError((error: unknown) => {
        if (apiErrors.isNotFound(error)) {
          print(`Node has been deleted ${request.key}`);
          return of(undefined);
        }
        // A run stopped on purpose (shutdown, lost leadership) is not a failure worth a Warning.
        if (!request.signal.aborted) {
          recorder?.event(node, {
            type: 'Warning',
            reason: LABEL_FAILED_REASON,
            action: LABEL_ACTION,
            note: `Adding label ${label.key}=${label.value} failed: ${messageOf(error)}`,
          });
        }
        return throwError(() => error);
      }),
    );
}

/** `30 s`, `1.5 s`, `250 ms`. */
export function formatDelay(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}
