/** Small object builders shared by the store and informer specs. */
import type { KubernetesObject } from '@kubernetes/client-node';

/** A pod-like object; `rv` becomes `metadata.resourceVersion`. */
export interface TestPod extends KubernetesObject {
  spec?: { nodeName?: string };
}

export function pod(name: string, rv: string, extra: { namespace?: string; node?: string; labels?: Record<string, string> } = {}): TestPod {
  const namespace = 'namespace' in extra ? extra.namespace : 'default';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), resourceVersion: rv, labels: extra.labels ?? {} },
    spec: extra.node === undefined ? {} : { nodeName: extra.node },
  };
}
