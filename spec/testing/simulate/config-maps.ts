/** The ConfigMap fixtures the controller-fault, oracle and published-bug specs share. */
import type { V1ConfigMap } from '@kubernetes/client-node';

export const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };

/** A ConfigMap `name` in `default` holding `data`. */
export const config = (name: string, data: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});
