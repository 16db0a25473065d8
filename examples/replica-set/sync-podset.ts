/**
 * The seed's sync handler for a PodSet: kube-controller-manager's `syncReplicaSet` and `manageReplicas`
 * (`pkg/controller/replicaset/replica_set.go`), reading the informers' caches and writing through the client.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { current } from 'immer';
import { catchError, concatMap, EMPTY, forkJoin, map, of, tap, throwError, type Observable } from 'rxjs';
import {
  ApiError,
  apiErrors,
  owners,
  selectors,
  type EventDetails,
  type EventRecorder,
  type ReconcileRequest,
  type RequeueAfter,
  type ResourceClient,
} from '../../src/index.js';
import { messageOf } from '../shared/health.js';
import type { Expectations } from './expectations.js';
import { POD_OWNER_INDEX } from './pod-events.js';
import { isPodActive, podKey, rankPodsForDeletion } from './pods.js';
import type { PodSet } from './podset.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from './slow-start.js';
import { calculateStatus, REPLICA_FAILURE, type SyncFailure } from './status.js';
import type { PodSetStatus } from './podset.js';

/** kube-controller-manager's `BurstReplicas`: at most this many Pods are created or deleted in one sync. */
export const DEFAULT_BURST_REPLICAS = 500;

/** The Event reasons, as kube-controller-manager's `PodControl` records them on the ReplicaSet. */
export const EVENT_REASONS = Object.freeze({
  created: 'SuccessfulCreate',
  createFailed: 'FailedCreate',
  deleted: 'SuccessfulDelete',
  deleteFailed: 'FailedDelete',
});

/** Everything a sync reads and writes besides its request. */
export interface SyncContext {
  readonly expectations: Expectations;
  /** The Pod informer, with the {@link POD_OWNER_INDEX} index. */
  readonly pods: { current(): { byIndex(index: string, value: string): V1Pod[] } };
  /** The PodSet informer: where the status write re-reads after a conflict. */
  readonly podSets: ResourceClient.StoreSource<PodSet>;
  readonly podClient: ResourceClient<V1Pod>;
  readonly podSetClient: ResourceClient<PodSet>;
  /** Where Events about PodSets go; `undefined` records none. */
  readonly recorder: EventRecorder | undefined;
  readonly burstReplicas: number;
  readonly print: (line: string) => void;
  /** The wall clock (`wallClockNow(scheduler)`), ms: condition times and the deletion ranking. */
  readonly now: () => number;
}

/** A failure of the sync, with the error to retry on. */
interface ManageFailure extends SyncFailure {
  readonly error: unknown;
}

/** How managing went, with the error of a failure. */
type ManageResult = 'ok' | 'skipped' | ManageFailure;

/**
 * One sync of one PodSet key, level-triggered: the PodSet from the cache when the run starts, and its Pods from the
 * Pod cache's owner index.
 *
 * # Guarantees
 * - Gone from the cache: its expectations are forgotten, and nothing is written. Expectations set for another
 *   PodSet of the same name (deleted and created again, both seen at once) are forgotten too.
 * - Pods are created or deleted only when the PodSet's expectations are satisfied (see `Expectations`), never while
 *   it is being deleted, and never for a spec whose selector does not match its template's labels.
 * - The cache is read and the new expectations are set in one synchronous step, before any request: no Pod event
 *   can slip in between, so the count a sync acts on and what it then expects always agree.
 * - Too few: creates `min(missing, burstReplicas)` Pods from the template, each with the PodSet as controller
 *   (`setControllerReference`: `controller` and `blockOwnerDeletion` true), in slow-start batches; the creations
 *   that failed or were skipped are taken off the expectations at once.
 * - Too many: deletes `min(surplus, burstReplicas)` Pods, chosen by `rankPodsForDeletion`, all at once; a delete
 *   that fails is taken off the expectations, and one that finds the Pod gone counts as done.
 * - Status (`replicas`, `readyReplicas`, `observedGeneration`, `selector`, {@link REPLICA_FAILURE}) goes through the
 *   status subresource with `mutate`, only when it differs from what the PodSet has, even after a failed create or
 *   delete; the failure then fails the run, so the operator retries it with backoff.
 * - While its expectations hold it back, the run asks to be requeued when they expire, so a PodSet whose Pod events
 *   were lost (collapsed into a relist) is synced again after at most the expectations timeout; a run they held back
 *   and that ends after they expired (its status write outlasted them) asks to run again at once: an expiry wakes
 *   nothing else, and the echo of its own status write does not either.
 * - Every call carries the run's `signal`: a run aborted by shutdown or lost leadership stops its requests, and
 *   the creations it no longer waits for are taken off the expectations like failed ones.
 *
 * # Caveats
 * - Only Pods whose controller reference is this PodSet (by uid) are counted: orphans that match the selector are
 *   not adopted, and a controlled Pod relabelled out of the selector is not released, unlike a ReplicaSet's
 *   `ClaimPods`.
 */
export function syncPodSet(
  request: ReconcileRequest<PodSet>,
  context: SyncContext,
): Observable<RequeueAfter | undefined> {
  const { key, signal } = request;
  const { expectations, print } = context;
  const podSet = request.object;
  if (podSet === undefined) {
    expectations.delete(key);
    print(`PodSet ${key} has been deleted`);
    return of(undefined);
  }
  const uid = podSet.metadata?.uid ?? '';
  // A PodSet deleted and created again under this name, both seen by this one sync: the deleted one's expectations
  // will never be met by this one's Pods (kube-controller-manager's `updateRS` on a uid change).
  expectations.forgetOther(key, uid);
  const needsSync = expectations.satisfied(key);
  const selector = readSelector(podSet);
  const activePods = ownActivePods(context, uid);

  let manage$: Observable<ManageResult> = of('skipped');
  /** Expectations held this sync back: another one must follow, whatever wakes the PodSet or not. */
  let heldBack = false;
  if ('problem' in selector) {
    print(`PodSet ${key} cannot be synced: ${selector.problem}`);
    manage$ = of({ reason: 'InvalidSpec', message: selector.problem, error: undefined });
  } else if (podSet.metadata?.deletionTimestamp != null) {
    print(`PodSet ${key} is being deleted; leaving its pods to the garbage collector`);
  } else if (needsSync) {
    manage$ = manageReplicas(podSet, key, activePods, request, context);
  } else {
    heldBack = true;
    const pending = expectations.get(key)!;
    print(
      `PodSet ${key} waits for its cache: ${Math.max(pending.add, 0)} creation(s) and ${Math.max(pending.del, 0)} deletion(s) not observed yet`,
    );
  }
  const selectorText = 'problem' in selector ? undefined : selector.text;
  return manage$.pipe(
    concatMap((outcome) => {
      // The caches' latest copies: they may have caught up with this sync's writes (and the last status write)
      // meanwhile, which saves a status write that would be outdated at once.
      const latest = context.podSets.current().get(key) ?? podSet;
      const status = (current: PodSetStatus | undefined): PodSetStatus =>
        calculateStatus({
          current,
          generation: podSet.metadata?.generation,
          activePods: ownActivePods(context, uid),
          outcome,
          selector: selectorText,
          now: context.now(),
        });
      return writeStatus(latest, key, status, signal, context).pipe(map(() => outcome));
    }),
    map((outcome) => {
      if (typeof outcome === 'object' && outcome.reason !== 'InvalidSpec') throw outcome.error;
      const expiresIn = expectations.expiresIn(key);
      // Held back by expectations that expired since (during the status write, or between two readings of the
      // clock): no event will come for an expiry, and this sync's status echo wakes nobody, so run again now.
      if (expiresIn === undefined) return heldBack ? { requeueAfter: 0 } : undefined;
      return { requeueAfter: expiresIn };
    }),
  );
}

/** The active Pods the PodSet of this uid controls, from the Pod cache's owner index. */
function ownActivePods(context: SyncContext, uid: string): V1Pod[] {
  return context.pods.current().byIndex(POD_OWNER_INDEX, uid).filter(isPodActive);
}

/** `spec.selector` read as a ReplicaSet's is validated: well-formed, not empty, and matching the template's labels. */
function readSelector(podSet: PodSet): { readonly text: string } | { readonly problem: string } {
  const matchLabels = podSet.spec?.selector?.matchLabels ?? {};
  let requirements;
  try {
    requirements = selectors.labelSelectorFromObject({ matchLabels });
  } catch (error) {
    return { problem: `invalid selector: ${messageOf(error)}` };
  }
  if (requirements.length === 0) return { problem: 'spec.selector.matchLabels is empty: it would select every pod' };
  if (!selectors.matchesLabels(requirements, podSet.spec?.template?.metadata?.labels)) {
    return { problem: 'spec.selector does not match spec.template.metadata.labels' };
  }
  return { text: selectors.formatLabelSelector(requirements) };
}

/** `manageReplicas`: creates or deletes Pods to close the gap, setting expectations before any request. */
function manageReplicas(
  podSet: PodSet,
  key: string,
  activePods: readonly V1Pod[],
  request: ReconcileRequest<PodSet>,
  context: SyncContext,
): Observable<ManageResult> {
  const { expectations, print, burstReplicas } = context;
  const want = podSet.spec?.replicas ?? 1;
  const diff = activePods.length - want;
  if (diff < 0) {
    const count = Math.min(-diff, burstReplicas);
    expectations.expectCreations(key, count, podSet.metadata?.uid);
    print(`Too few replicas for PodSet ${key}: need ${want}, have ${activePods.length}, creating ${count}`);
    return slowStartBatch(
      count,
      SLOW_START_INITIAL_BATCH_SIZE,
      () => createPod(podSet, key, request.signal, context),
      (size) => print(`PodSet ${key}: slow-start batch of ${size}`),
    ).pipe(
      map((result) => {
        const skipped = count - result.successes;
        if (skipped > 0) {
          print(
            `Slow-start failure for PodSet ${key}: ${skipped} of ${count} creation(s) failed or skipped; lowering expectations`,
          );
          // The informer will never see these Pods.
          for (let i = 0; i < skipped; i++) expectations.creationObserved(key);
        }
        return result.error === undefined
          ? 'ok'
          : { reason: 'FailedCreate', message: messageOf(result.error), error: result.error };
      }),
    );
  }
  if (diff > 0) {
    const count = Math.min(diff, burstReplicas);
    const doomed = rankPodsForDeletion(activePods, context.now()).slice(0, count);
    expectations.expectDeletions(key, doomed.map(podKey), podSet.metadata?.uid);
    print(
      `Too many replicas for PodSet ${key}: need ${want}, have ${activePods.length}, deleting ${count}: ${doomed.map((pod) => pod.metadata?.name).join(', ')}`,
    );
    return forkJoin(doomed.map((pod) => deletePod(podSet, key, pod, request.signal, context))).pipe(
      map((errors) => {
        const error = errors.find((e) => e !== undefined);
        return error === undefined ? 'ok' : { reason: 'FailedDelete', message: messageOf(error), error };
      }),
    );
  }
  return of('ok');
}

/** One Pod from the template (`GetPodFromTemplate`), created; a failure records a Warning and errors. */
function createPod(podSet: PodSet, key: string, signal: AbortSignal, context: SyncContext): Observable<unknown> {
  const pod = podFromTemplate(podSet);
  return context.podClient.create(pod, { signal }).pipe(
    tap((created) => {
      context.print(`Created pod ${created.metadata?.name} for PodSet ${key}`);
      record(context, podSet, {
        type: 'Normal',
        reason: EVENT_REASONS.created,
        action: 'Create',
        note: `Created pod: ${created.metadata?.name}`,
      });
    }),
    catchError((error: unknown) => {
      // As kube-controller-manager: creating into a terminating namespace cannot succeed and is nobody's failure.
      if (isNamespaceTerminating(error)) return EMPTY;
      if (!signal.aborted) {
        context.print(`Failed to create a pod for PodSet ${key}: ${messageOf(error)}`);
        record(context, podSet, {
          type: 'Warning',
          reason: EVENT_REASONS.createFailed,
          action: 'Create',
          note: `Error creating: ${messageOf(error)}`,
        });
      }
      return throwError(() => error);
    }),
  );
}

/**
 * The Pod a PodSet creates: the template's labels, annotations, finalizers and spec, named `<podset>-<random>` by
 * the server (`generateName`), in the PodSet's namespace, controlled by the PodSet.
 */
export function podFromTemplate(podSet: PodSet): V1Pod {
  const template = podSet.spec?.template ?? {};
  const { name, namespace } = podSet.metadata ?? {};
  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${name}-`,
      namespace,
      labels: { ...template.metadata?.labels },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ...(template.metadata?.finalizers?.length ? { finalizers: [...template.metadata.finalizers] } : {}),
    },
    spec: structuredClone(template.spec) as V1Pod['spec'],
  };
  // The informer's PodSet carries apiVersion and kind (the reflector fills in what list items lack).
  return owners.setControllerReference(pod, podSet);
}

/** One Pod deleted; resolves to the error to report, or `undefined` (done, or already gone). */
function deletePod(
  podSet: PodSet,
  key: string,
  pod: V1Pod,
  signal: AbortSignal,
  context: SyncContext,
): Observable<unknown> {
  const name = pod.metadata?.name;
  return context.podClient.delete(pod, { signal }).pipe(
    map(() => {
      context.print(`Deleted pod ${name} of PodSet ${key}`);
      record(context, podSet, {
        type: 'Normal',
        reason: EVENT_REASONS.deleted,
        action: 'Delete',
        note: `Deleted pod: ${name}`,
      });
      return undefined;
    }),
    catchError((error: unknown) => {
      // The informer will not see this deletion (or saw it already): stop waiting for it.
      context.expectations.deletionObserved(key, podKey(pod));
      if (apiErrors.isNotFound(error)) return of(undefined);
      if (!signal.aborted) {
        context.print(`Failed to delete pod ${name} of PodSet ${key}: ${messageOf(error)}`);
        record(context, podSet, {
          type: 'Warning',
          reason: EVENT_REASONS.deleteFailed,
          action: 'Delete',
          note: `Error deleting: ${messageOf(error)}`,
        });
      }
      return of(error);
    }),
  );
}

/**
 * The status write: only when it changes something, through the status subresource, guarded by the
 * resourceVersion and re-read (from the cache once it has caught up) on a conflict. The status is computed from the
 * object each attempt writes over, so conditions another attempt or an earlier sync set are carried over, never
 * overwritten from a stale copy. The line is printed once the write went through, and only when it changed
 * something.
 */
function writeStatus(
  podSet: PodSet,
  key: string,
  statusOf: (current: PodSetStatus | undefined) => PodSetStatus,
  signal: AbortSignal,
  context: SyncContext,
): Observable<unknown> {
  if (isDeepStrictEqual(podSet.status ?? {}, statusOf(podSet.status))) return of(undefined);
  let written: PodSetStatus | undefined;
  return context.podSetClient
    .mutate(
      podSet,
      (draft) => {
        const before = current(draft).status;
        const status = statusOf(before);
        written = isDeepStrictEqual(before ?? {}, status) ? undefined : status;
        draft.status = status;
      },
      { signal, store: context.podSets },
    )
    .pipe(
      tap(() => {
        if (written === undefined) return;
        const failure = written.conditions?.find((condition) => condition.type === REPLICA_FAILURE);
        context.print(
          `PodSet ${key} status: replicas ${written.replicas}, ready ${written.readyReplicas}, observedGeneration ${written.observedGeneration}` +
            (failure ? `, ${REPLICA_FAILURE} ${failure.reason}: ${failure.message}` : ''),
        );
      }),
      // Deleted meanwhile: there is no status left to write.
      catchError((error: unknown) => (apiErrors.isNotFound(error) ? of(undefined) : throwError(() => error))),
    );
}

function record(context: SyncContext, podSet: PodSet, details: EventDetails): void {
  context.recorder?.event(podSet, details);
}

/** The 403 of a create into a namespace being deleted (`NamespaceTerminatingCause`). */
function isNamespaceTerminating(error: unknown): boolean {
  return error instanceof ApiError && error.causes.some((cause) => cause.reason === 'NamespaceTerminating');
}
