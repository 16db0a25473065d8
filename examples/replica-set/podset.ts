/**
 * The `PodSet` custom resource: its types, its resource reference, its CRD (`deploy/podset-crd.yaml`) and its install.
 * @module
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject, V1ObjectMeta, V1PodTemplateSpec } from '@kubernetes/client-node';
import { catchError, filter, firstValueFrom, map, mergeMap, of, take, throwError, timeout, timer, type Observable } from 'rxjs';
import { parse } from 'yaml';
import { isAlreadyExists, resourceClient, type Connection, type Owner, type ResourceRef } from '../../src/index.js';

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

/**
 * The PodSet as an owner: `apiVersion` and `kind` from {@link PODSET}, never from the object, because an object
 * from an informer's initial list carries neither (the API server leaves them out of list items).
 */
export function podSetOwner(podSet: PodSet): Owner {
  return { apiVersion: PODSET.apiVersion, kind: PODSET.kind, metadata: podSet.metadata ?? {} };
}

/** The CRD, read from {@link PODSET_CRD_PATH}. */
export function podSetCrd(): KubernetesObject {
  return parse(readFileSync(PODSET_CRD_PATH, 'utf8')) as KubernetesObject;
}

interface CrdStatus {
  readonly spec?: unknown;
  readonly status?: { readonly conditions?: ReadonlyArray<{ readonly type?: string; readonly status?: string }> };
}

/**
 * Installs (or updates) the PodSet CRD and resolves once it is `Established`, so a PodSet can be created right
 * after. The real API server takes a second or two; the in-memory one answers Established.
 *
 * # Guarantees
 * - Idempotent: a CRD that exists is replaced with this one (guarded by its resourceVersion); an unchanged one is
 *   left as it is.
 * - Rejects with the server's error when the write fails (e.g. 403 without rights on CRDs), and after `timeoutMs`
 *   (default 30 s) if the CRD never becomes Established.
 *
 * # Caveats
 * - A create or a replace, not server-side apply: the in-memory server's apply drops the empty
 *   `subresources.status: {}` of a CRD, so it would not serve `/status` (kube-apiserver keeps it).
 */
export function installPodSetCrd(connection: Connection, options: { readonly fieldManager?: string; readonly timeoutMs?: number } = {}): Promise<void> {
  const crds = resourceClient<KubernetesObject & CrdStatus>(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, {
    fieldManager: options.fieldManager ?? 'rxkube-replica-set',
  });
  const crd = podSetCrd();
  const name = crd.metadata!.name!;
  const established = (object: CrdStatus): boolean =>
    object.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') === true;
  const poll$: Observable<unknown> = timer(0, 200).pipe(
    mergeMap(() => crds.get(name)),
    filter(established),
    take(1),
  );
  const update$ = crds.get(name).pipe(
    mergeMap((existing) => (isDeepStrictEqual(existing.spec, (crd as CrdStatus).spec) ? of(existing)
      : crds.replace({ ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion } }))),
  );
  return firstValueFrom(crds.create(crd).pipe(
    catchError((error: unknown) => (isAlreadyExists(error) ? update$ : throwError(() => error))),
    mergeMap((written) => (established(written) ? of(written) : poll$)),
    timeout({ first: options.timeoutMs ?? 30_000, with: () => throwError(() => new Error(`the CRD ${name} did not become Established`)) }),
    map(() => undefined),
  ));
}
