/**
 * Small ConfigMaps for the scale workload: two labels and three short data keys, about 300 B of JSON once the
 * server's uid, creationTimestamp and resourceVersion are in, as a million of them look in a large cluster.
 */

/** A plain JSON ConfigMap as the API server stores it (resourceVersion is stamped by the caller). */
export type ConfigMapJson = {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: Record<string, unknown> & { name: string; namespace: string };
  data: Record<string, string>;
};

const NAMESPACES = 20;

/** The `i`-th ConfigMap (namespace `scale-<i mod 20>`). */
export function smallConfigMap(i: number): ConfigMapJson {
  const id = i.toString(16).padStart(8, '0');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `settings-${i.toString(36).padStart(4, '0')}`,
      namespace: `scale-${i % NAMESPACES}`,
      uid: `${id}-5c1e-4a7b-9d2e-${id}0000`,
      creationTimestamp: new Date(Date.UTC(2026, 10, 1) + (i % 86_400) * 1000).toISOString().replace('.000Z', 'Z'),
      labels: { app: `app-${i % 40}`, tier: i % 2 ? 'web' : 'worker' },
    },
    data: { mode: 'production', replicas: String(1 + (i % 5)), endpoint: `https://svc-${i % 300}.example.com/v1` },
  };
}

/** The `generation`-th modification of a ConfigMap: one data value changes. */
export function modifyConfigMap(configMap: ConfigMapJson, generation: number): ConfigMapJson {
  return { ...configMap, data: { ...configMap.data, replicas: String(generation % 1000) } };
}
