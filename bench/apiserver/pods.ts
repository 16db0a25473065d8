/** Realistic pod manifests for the API-server benchmark: ~1.5 KB each, with managedFields as a real server stores. */
export function makePod(index: number): {
  apiVersion: string;
  kind: string;
  metadata: { name: string } & Record<string, unknown>;
  spec: unknown;
} {
  const name = `bench-pod-${String(index).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels: { app: `app-${index % 50}`, tier: index % 2 === 0 ? 'web' : 'worker', 'pod-template-hash': '7d9f8b6c5d' },
      annotations: { 'kubernetes.io/config.seen': '2026-11-22T00:00:00Z', 'prometheus.io/scrape': 'true' },
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-22T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } },
            'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {} } } },
          },
        },
      ],
    },
    spec: {
      nodeName: `node-${index % 100}`,
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/team/app:1.27.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'POD_INDEX', value: String(index) },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
        },
        {
          name: 'sidecar',
          image: 'registry.example.com/team/proxy:2.4.1',
          ports: [{ containerPort: 15001, protocol: 'TCP' }],
        },
      ],
      restartPolicy: 'Always',
      serviceAccountName: 'default',
    },
  };
}
