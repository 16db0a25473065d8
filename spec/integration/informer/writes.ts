/** Pod writes through client-node, as an application would make them. */
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import type { ClusterHandle } from '../../../src/testing/index.js';
import { pod } from './support.js';

/** Creates, relabels and deletes pods in one namespace; every call returns the server's resulting object. */
export interface PodWriter {
  create(name: string, labels?: Record<string, string>): Promise<V1Pod>;
  /** Read-modify-write of the labels (a real update: new resourceVersion). */
  relabel(name: string, labels: Record<string, string>): Promise<V1Pod>;
  remove(name: string): Promise<void>;
}

export function podWriter(cluster: Pick<ClusterHandle, 'kubeConfig'>, namespace = 'default'): PodWriter {
  const api = cluster.kubeConfig.makeApiClient(CoreV1Api);
  return {
    create: (name, labels = {}) => api.createNamespacedPod({ namespace, body: pod(name, labels) }),
    relabel: async (name, labels) => {
      const current = await api.readNamespacedPod({ name, namespace });
      return api.replaceNamespacedPod({
        name,
        namespace,
        body: { ...current, metadata: { ...current.metadata, labels } },
      });
    },
    remove: async (name) => {
      await api.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
    },
  };
}
