/** Small object builders shared by the store and informer specs. */
import type { KubernetesObject } from '@kubernetes/client-node';

/** A pod-like object; `rv` becomes `metadata.resourceVersion`. */
export interface TestPod extends KubernetesObject {
  spec?: { nodeName?: string };
}

export function pod(
  name: string,
  rv: string,
  extra: { namespace?: string; node?: string; labels?: Record<string, string> } = {},
): TestPod {
  const namespace = 'namespace' in extra ? extra.namespace : 'default';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      resourceVersion: rv,
      labels: extra.labels ?? {},
    },
    spec: extra.node === undefined ? {} : { nodeName: extra.node },
  };
}

/** Whether `value` and everything reachable from it (including Map entries) is frozen. */
export function everythingFrozen(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true;
  seen.add(value);
  if (!Object.isFrozen(value)) return false;
  const children = value instanceof Map ? [...value.entries()].flat() : Object.values(value);
  return children.every((child) => everythingFrozen(child, seen));
}
