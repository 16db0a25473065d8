/**
 * What the controller reads off a Pod: whether it counts, whether it is ready, and which Pods to delete first when
 * scaling down (kube-controller-manager's `ActivePodsWithRanks`, `pkg/controller/controller_utils.go`).
 * @module
 */
import type { V1Pod } from '@kubernetes/client-node';

/** The annotation that makes a Pod cheaper (lower) or dearer (higher) to delete, as for ReplicaSets. */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** A Pod that counts as a replica (`IsPodActive`): not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp == null;
}

/** `IsPodReady`: the Pod's `Ready` condition is True. */
export function isPodReady(pod: V1Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

function readyCondition(pod: V1Pod) {
  return pod.status?.conditions?.find((condition) => condition.type === 'Ready');
}

/** `namespace/name`, the key expectations track a Pod's deletion by (`controller.PodKey`). */
export function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** `podPhaseToOrdinal`: a phase it does not list ranks as Pending. */
const PHASE_ORDER: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Orders Pods so that the ones to delete first come first, as the ReplicaSet controller ranks them. Applying each
 * rule in turn until one tells the two Pods apart:
 *
 * 1. unassigned (no `spec.nodeName`) before assigned;
 * 2. Pending before Unknown before Running;
 * 3. not ready before ready;
 * 4. lower `controller.kubernetes.io/pod-deletion-cost` before higher (an invalid value counts as 0);
 * 5. more of the set's active Pods on the same node before fewer (spreading what is left);
 * 6. both ready: ready for a shorter time before longer;
 * 7. more container restarts before fewer;
 * 8. created more recently before earlier.
 *
 * In 6 and 8 times are compared on kube-controller-manager's logarithmic scale (`LogarithmicScaleDown`, on by
 * default): two times whose age from `now` has the same integer log2 (in nanoseconds) tie, and ties are broken by
 * uid, so Pods of about the same age are picked in a pseudo-random but stable order. A missing time ranks first.
 *
 * # Guarantees
 * - Returns a new array; `pods` is not changed. Deterministic for the same Pods and `now`.
 *
 * # Caveats
 * - Restarts compare the highest container restart count (sidecar restarts, which kube-controller-manager compares
 *   as a second step, are not looked at).
 * - "Related" Pods for rule 5 are the set's own; kube-controller-manager also counts those of the other ReplicaSets
 *   of the same Deployment, which a PodSet does not have.
 */
export function rankPodsForDeletion(pods: readonly V1Pod[], now: number): V1Pod[] {
  const onNode = new Map<string, number>();
  for (const pod of pods) {
    if (isPodActive(pod)) onNode.set(pod.spec?.nodeName ?? '', (onNode.get(pod.spec?.nodeName ?? '') ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((a, b) => compare(a.pod, a.rank, b.pod, b.rank, now));
  return ranked.map(({ pod }) => pod);
}

/** Negative when `a` should be deleted before `b`. */
function compare(a: V1Pod, rankA: number, b: V1Pod, rankB: number, now: number): number {
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phase = (PHASE_ORDER[a.status?.phase ?? ''] ?? 0) - (PHASE_ORDER[b.status?.phase ?? ''] ?? 0);
  if (phase !== 0) return phase;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  const cost = deletionCost(a) - deletionCost(b);
  if (cost !== 0) return cost;
  if (rankA !== rankB) return rankB - rankA;
  if (readyA && readyB) {
    const byReadyTime = newerFirst(readySince(a), readySince(b), a, b, now);
    if (byReadyTime !== 0) return byReadyTime;
  }
  const restarts = maxRestarts(b) - maxRestarts(a);
  if (restarts !== 0) return restarts;
  return newerFirst(timeOf(a.metadata?.creationTimestamp), timeOf(b.metadata?.creationTimestamp), a, b, now);
}

/**
 * `afterOrZero` on the logarithmic scale: the later time (a missing one counts as latest) first; times in the same
 * power-of-two age bucket tie and are ordered by uid.
 */
function newerFirst(timeA: number | undefined, timeB: number | undefined, a: V1Pod, b: V1Pod, now: number): number {
  if (timeA === timeB) return 0;
  if (timeA === undefined || timeB === undefined) return timeA === undefined ? -1 : 1;
  const bucket = logBucket(now - timeA) - logBucket(now - timeB);
  if (bucket !== 0) return bucket;
  const uidA = a.metadata?.uid ?? '';
  const uidB = b.metadata?.uid ?? '';
  return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
}

/** `int64(math.Log2(float64(d)))` of an age in ns, or -1 for an age that is not positive. */
function logBucket(ageMs: number): number {
  return ageMs > 0 ? Math.floor(Math.log2(ageMs * 1e6)) : -1;
}

function deletionCost(pod: V1Pod): number {
  const value = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  // `GetDeletionCostFromPodAnnotations`: an int32 without a plus sign or leading zeros; anything else is 0.
  if (value === undefined || !/^(-\d+|0|[1-9]\d*)$/.test(value)) return 0;
  const cost = Number(value);
  return cost >= -(2 ** 31) && cost < 2 ** 31 ? cost : 0;
}

function readySince(pod: V1Pod): number | undefined {
  return timeOf(readyCondition(pod)?.lastTransitionTime);
}

function maxRestarts(pod: V1Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((status) => status.restartCount ?? 0));
}

function timeOf(time: Date | string | undefined): number | undefined {
  if (time === undefined || time === null) return undefined;
  const ms = time instanceof Date ? time.getTime() : Date.parse(time);
  return Number.isNaN(ms) ? undefined : ms;
}
