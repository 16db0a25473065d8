/**
 * One picture of the cluster and the controller, as the page draws it: plain JSON, bounded in size, read from the
 * views' current snapshots and the controllers' queue watches when a frame is due (never per event).
 * @module
 */
import type { V1Lease, V1Pod } from '@kubernetes/client-node';
import { conditions, type views, type WatchStatus } from '../../src/index.js';
import type { PodSet } from '../replica-set/podset.js';
import type { ClusterViews } from './cluster-views.js';
import type { QueueState, ReconcileWatch, RunRow } from './reconcile-watch.js';

/** Pods listed under one PodSet, at most. */
export const PODS_PER_PODSET = 12;

/** How many leadership changes the page lists. */
export const LEADER_HISTORY = 10;

/** A PodSet and its Pods. */
export interface PodSetRow {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** `spec.replicas` (1 when unset, as the CRD defaults it). */
  readonly desired: number;
  /** `status.readyReplicas` as the controller last wrote it. */
  readonly ready: number;
  /** Pods it controls in the cache now, terminating ones included. */
  readonly pods: number;
  /** Up to {@link PODS_PER_PODSET} of them. */
  readonly podList: ReadonlyArray<{
    readonly name: string;
    readonly phase: string;
    readonly ready: boolean;
    readonly terminating: boolean;
  }>;
  /** The message of its `ReplicaFailure` condition, when True. */
  readonly failure?: string;
}

/** Leader election as the page shows it. */
export interface LeaderState {
  /** False when the manager runs without leader election (it then always leads). */
  readonly enabled: boolean;
  /** Whether this process leads. */
  readonly leading: boolean;
  /** `namespace/name` of the Lease. */
  readonly lease?: string;
  /** The Lease's `holderIdentity`, `renewTime` (ms since the epoch) and `leaseTransitions`, when it is in the cache. */
  readonly holder?: string;
  readonly renewedAt?: number;
  readonly transitions?: number;
  /** This process's changes of leadership, newest first (wall clock, ms). */
  readonly history: ReadonlyArray<{ readonly leading: boolean; readonly at: number }>;
}

/** The whole picture: what one frame of the event stream carries. */
export interface DashboardState {
  readonly title: string;
  /** When it was read (wall clock, ms since the epoch): the page measures ages against it. */
  readonly now: number;
  /** The manager is stopping: the page says so. */
  readonly stopping: boolean;
  readonly leader: LeaderState;
  /** Every namespace that holds an object of a listed kind, sorted. */
  readonly namespaces: readonly string[];
  /** Objects per kind per namespace. */
  readonly kinds: ReadonlyArray<{
    readonly kind: string;
    readonly total: number;
    readonly synced: boolean;
    readonly perNamespace: Readonly<Record<string, number>>;
  }>;
  /** Every Pod phase in use, sorted. */
  readonly phases: readonly string[];
  /** Pods per phase per namespace. */
  readonly podPhases: ReadonlyArray<{ readonly namespace: string; readonly phases: Readonly<Record<string, number>> }>;
  /** PodSets by key, at most the list limit; `podSetTotal` counts them all. */
  readonly podSets: readonly PodSetRow[];
  readonly podSetTotal: number;
  readonly queues: readonly QueueState[];
  /** Finished runs of every observed controller, newest first, with the controller's name. */
  readonly runs: ReadonlyArray<RunRow & { readonly controller: string }>;
  readonly informers: ReadonlyArray<{ readonly name: string; readonly state: string; readonly detail?: string }>;
  /** Browsers connected now. */
  readonly clients: number;
}

/** What {@link readDashboardState} reads. */
export interface StateSources {
  readonly title: string;
  readonly views: ClusterViews;
  readonly watches: readonly ReconcileWatch[];
  readonly leader: {
    readonly enabled: boolean;
    readonly lease: string | undefined;
    readonly leading: boolean;
    readonly history: LeaderState['history'];
  };
  readonly statuses: ReadonlyMap<string, WatchStatus>;
  readonly stopping: boolean;
  readonly clients: number;
  readonly listLimit: number;
  readonly recentRuns: number;
}

/**
 * Reads the picture now.
 *
 * # Guarantees
 * - Reads each view's current snapshot once: each part is a consistent snapshot of its view (see `views.View`).
 * - Bounded: at most `listLimit` PodSets, queue keys per list, and `recentRuns` runs; namespaces and phases are as
 *   many as the cluster has.
 * - Costs O(namespaces × kinds + phases + PodSets log PodSets + listed rows): nothing proportional to the number
 *   of Pods.
 */
export function readDashboardState(sources: StateSources, now: number): DashboardState {
  const { views: cluster, listLimit } = sources;
  const namespaces = new Set<string>();
  const kinds = cluster.kinds.map(({ kind, informer, perNamespace }) => {
    const perNs: Record<string, number> = {};
    let total = 0;
    for (const row of perNamespace.current().values()) {
      perNs[row.metadata.name] = row.count;
      total += row.count;
      namespaces.add(row.metadata.name);
    }
    return { kind, total, synced: informer.current().synced, perNamespace: perNs };
  });
  const phases = new Set<string>();
  const byNamespace = new Map<string, Record<string, number>>();
  for (const row of cluster.podPhases.current().values()) {
    const namespace = row.metadata.namespace ?? '';
    phases.add(row.metadata.name);
    const counts = byNamespace.get(namespace) ?? {};
    counts[row.metadata.name] = row.count;
    byNamespace.set(namespace, counts);
  }
  const tree = cluster.podSetPods.current();
  const podSetKeys = [...tree.keys()].sort();
  const runs = sources.watches
    .flatMap((watch) => watch.recent().map((run) => ({ ...run, controller: watch.controller })))
    .sort((a, b) => b.at - a.at)
    .slice(0, sources.recentRuns);
  return {
    title: sources.title,
    now,
    stopping: sources.stopping,
    leader: leaderState(sources.leader, cluster.lease?.current().values().next().value),
    namespaces: [...namespaces].sort(),
    kinds,
    phases: [...phases].sort(),
    podPhases: [...byNamespace]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([namespace, counts]) => ({ namespace, phases: counts })),
    podSets: podSetKeys.slice(0, listLimit).map((key) => podSetRow(key, tree.get(key)!)),
    podSetTotal: podSetKeys.length,
    queues: sources.watches.map((watch) => watch.state(listLimit)),
    runs,
    informers: cluster.informers.map(({ name }) => ({ name, ...describeStatus(sources.statuses.get(name)) })),
    clients: sources.clients,
  };
}

function podSetRow(key: string, row: views.JoinRow<PodSet, V1Pod>): PodSetRow {
  const podSet = row.left;
  const podList: Array<PodSetRow['podList'][number]> = [];
  // The group's own order (by key hash) is stable between frames, so a listed Pod does not jump around.
  for (const pod of row.right.values()) {
    if (podList.length === PODS_PER_PODSET) break;
    podList.push({
      name: pod.metadata?.name ?? '',
      phase: pod.status?.phase ?? 'Pending',
      ready:
        pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false,
      terminating: pod.metadata?.deletionTimestamp != null,
    });
  }
  const failure = conditions.find(podSet.status?.conditions, 'ReplicaFailure');
  return {
    key,
    namespace: podSet.metadata?.namespace ?? '',
    name: podSet.metadata?.name ?? '',
    desired: podSet.spec?.replicas ?? 1,
    ready: podSet.status?.readyReplicas ?? 0,
    pods: row.right.size,
    podList: podList.sort((a, b) => a.name.localeCompare(b.name)),
    ...(failure?.status === 'True' ? { failure: failure.message ?? failure.reason ?? 'ReplicaFailure' } : {}),
  };
}

function leaderState(leader: StateSources['leader'], lease: V1Lease | undefined): LeaderState {
  const renewTime = lease?.spec?.renewTime as unknown;
  const renewedAt =
    typeof renewTime === 'string' ? Date.parse(renewTime) : renewTime instanceof Date ? renewTime.getTime() : undefined;
  return {
    enabled: leader.enabled,
    leading: leader.leading,
    ...(leader.lease === undefined ? {} : { lease: leader.lease }),
    ...(lease?.spec?.holderIdentity ? { holder: lease.spec.holderIdentity } : {}),
    ...(renewedAt !== undefined && Number.isFinite(renewedAt) ? { renewedAt } : {}),
    ...(lease?.spec?.leaseTransitions === undefined ? {} : { transitions: lease.spec.leaseTransitions }),
    history: leader.history,
  };
}

function describeStatus(status: WatchStatus | undefined): { readonly state: string; readonly detail?: string } {
  if (status === undefined) return { state: 'starting' };
  switch (status.state) {
    case 'listing':
      return { state: 'listing', detail: `page ${status.page}` };
    case 'watching':
      return { state: 'watching' };
    case 'backingOff':
      return {
        state: 'backing off',
        detail: `${status.cause.reason}: ${status.cause.message} (attempt ${status.attempt}, next in ${status.delayMs} ms)`,
      };
    case 'error':
    case 'failed':
      return { state: status.state, detail: `${status.cause.reason}: ${status.cause.message}` };
    default:
      return { state: status.state };
  }
}
