/**
 * The derived views the page is drawn from, over the manager's shared informers (the same watches the controller
 * uses): objects per kind per namespace, Pods per phase per namespace, and each PodSet with the Pods it owns.
 * @module
 */
import type { KubernetesObject, V1Lease, V1Pod } from '@kubernetes/client-node';
import { views, type Informer, type InformerFactory } from '../../src/index.js';
import { POD, PODSET, type PodSet } from '../replica-set/podset.js';

/** Where the page's Lease is read from. */
export const LEASE = Object.freeze({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });

/** The group of cluster-scoped objects in a per-namespace count. */
export const CLUSTER_SCOPED = '(cluster)';

/** An informer of one kind, and its objects counted per namespace. */
export interface KindCount {
  readonly kind: string;
  readonly informer: Informer<KubernetesObject>;
  /** One row per namespace (the row's `metadata.name`), `count` objects of the kind in it. */
  readonly perNamespace: views.View<views.AggregateRow>;
}

/** Every view and informer the page reads. */
export interface ClusterViews {
  /** Objects per kind per namespace: PodSets and Pods. */
  readonly kinds: readonly KindCount[];
  /** Pods per phase per namespace: the row `default/Running` counts the Running Pods of default. */
  readonly podPhases: views.View<views.AggregateRow>;
  /** Each PodSet (left) with the Pods whose controller reference is it (right), joined by uid. */
  readonly podSetPods: views.View<views.JoinRow<PodSet, V1Pod>>;
  /** The manager's Lease, when leader election is on. */
  readonly lease: Informer<V1Lease> | undefined;
  /** The informers underneath, labelled, for their connection status. */
  readonly informers: ReadonlyArray<{ readonly name: string; readonly informer: Informer<KubernetesObject> }>;
}

/**
 * The page's views over `informers` (the manager's factory: the PodSet and Pod informers are the controller's own,
 * shared, so the page costs no extra watch for them; the Lease is one more, of one object).
 *
 * # Guarantees
 * - Every view is incremental: an object's change costs a few map operations and row writes in the views it
 *   belongs to, whatever the number of objects (see `docs/composition.md`, "What a view costs").
 * - The views are cold: they run while the dashboard subscribes to them, and share the informers' subscriptions.
 */
export function clusterViews(
  informers: InformerFactory,
  scope: {
    readonly namespace?: string | undefined;
    readonly lease: { readonly namespace: string; readonly name: string } | false;
  },
): ClusterViews {
  const where = scope.namespace === undefined ? {} : { namespace: scope.namespace };
  const podSets = informers.for<PodSet>(PODSET, where);
  const pods = informers.for<V1Pod>(POD, where);
  const lease =
    scope.lease === false
      ? undefined
      : informers.for<V1Lease>(LEASE, {
          namespace: scope.lease.namespace,
          fieldSelector: `metadata.name=${scope.lease.name}`,
        });
  const kinds: KindCount[] = [
    { kind: PODSET.kind, informer: podSets as Informer<KubernetesObject>, perNamespace: countPerNamespace(podSets) },
    { kind: POD.kind, informer: pods as Informer<KubernetesObject>, perNamespace: countPerNamespace(pods) },
  ];
  return {
    kinds,
    podPhases: views.aggregate(pods, {
      groupBy: (pod) => `${pod.metadata?.namespace}/${pod.status?.phase ?? 'Unknown'}`,
    }),
    podSetPods: views.owned(podSets, pods),
    lease,
    informers: [
      { name: 'PodSets', informer: podSets as Informer<KubernetesObject> },
      { name: 'Pods', informer: pods as Informer<KubernetesObject> },
      ...(lease === undefined ? [] : [{ name: 'Lease', informer: lease as Informer<KubernetesObject> }]),
    ],
  };
}

/** One row per namespace, counting the objects in it; cluster-scoped objects count under {@link CLUSTER_SCOPED}. */
function countPerNamespace<T extends KubernetesObject>(informer: Informer<T>): views.View<views.AggregateRow> {
  return views.aggregate(informer, { groupBy: (object) => object.metadata?.namespace || CLUSTER_SCOPED });
}
