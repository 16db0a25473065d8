/**
 * The `PodSet` custom resource: its types, its resource reference, its CRD (`deploy/podset-crd.yaml`) and its install.
 * @module
 */
import type { KubernetesObject, V1ObjectMeta, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { Connection, ResourceRef } from '../../src/index.js';
import { installCrd, readCrd } from '../shared/crd.js';

/** The API group of the example's resources. */
export const PODSET_GROUP = 'examples.rxkube.io';

/** The resource the controller reconciles. */
export const PODSET: ResourceRef = Object.freeze({ apiVersion: `${PODSET_GROUP}/v1alpha1`, kind: 'PodSet' });

/** The resource it creates and deletes. */
export const POD: ResourceRef = Object.freeze({ apiVersion: 'v1', kind: 'Pod' });

/** The CRD's file, beside this module: the single source of the PodSet schema. */
export const PODSET_CRD_PATH = new URL('./deploy/podset-crd.yaml', import.meta.url);

/** What a PodSet asks for. */
export interface PodSetSpec {
  /** Pods to keep; the CRD defaults it to 1 (a server that does not default it is read as 1 too). */
  replicas?: number;
  /** The labels that mark the set's Pods (only `matchLabels`: the CRD allows nothing else). */
  selector: { matchLabels?: Record<string, string> };
  /** What every Pod is created from. */
  template: V1PodTemplateSpec;
}

/** A condition of a PodSet, shaped as a ReplicaSet's. */
export interface PodSetCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  /** RFC 3339, seconds. */
  lastTransitionTime?: string;
}

/** What the controller reports, through the status subresource. */
export interface PodSetStatus {
  /** Pods that exist and are neither terminating nor finished. */
  replicas?: number;
  /** Of those, the Pods whose `Ready` condition is True. */
  readyReplicas?: number;
  /** The `metadata.generation` this status was computed from. */
  observedGeneration?: number;
  /** `spec.selector` as selector text, for the scale subresource. */
  selector?: string;
  conditions?: PodSetCondition[];
}

/** A PodSet as the API serves it. */
export interface PodSet extends KubernetesObject {
  metadata?: V1ObjectMeta;
  spec?: PodSetSpec;
  status?: PodSetStatus;
}

/** The CRD, read from {@link PODSET_CRD_PATH}. */
export function podSetCrd(): KubernetesObject {
  return readCrd(PODSET_CRD_PATH);
}

/**
 * Installs (or updates) the PodSet CRD and resolves once PodSets are served (see `installCrd`): the CRD is
 * `Established` and a list of PodSets answers, so a PodSet can be created right after.
 *
 * # Guarantees
 * - Idempotent: a CRD that exists is replaced with this one (guarded by its resourceVersion); an unchanged one is
 *   left as it is.
 * - Rejects with the server's error when the write fails (e.g. 403 without rights on CRDs), and after `timeoutMs`
 *   (default 30 s) if PodSets are not served by then.
 */
export function installPodSetCrd(
  connection: Connection,
  options: { readonly fieldManager?: string; readonly timeoutMs?: number } = {},
): Promise<void> {
  return installCrd(connection, podSetCrd(), {
    fieldManager: options.fieldManager ?? 'rxkube-replica-set',
    served: PODSET,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}
