/**
 * The objects of the store benchmark: realistic pods (~1.8 KB of JSON) and small ConfigMaps (~300 B), for the rows
 * where a million realistic pods would not fit the machine next to their floor.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

export interface BenchObject extends KubernetesObject {
  spec?: { nodeName: string; containers: unknown[] };
}

/** A pod shaped like a real one: labels, annotations, owner reference, two containers, status conditions. */
export function realisticPod(i: number, rv: number): BenchObject {
  const name = `web-${i.toString(36)}-${(i * 7919).toString(36)}`;
  const container = (n: number) => ({
    name: `c${n}`,
    image: `registry.example.com/team/app-${n}:v1.${i % 50}.0`,
    ports: [{ name: 'http', containerPort: 8080 + n, protocol: 'TCP' }],
    env: [
      { name: 'MODE', value: 'production' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 + n }, periodSeconds: 10 },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `team-${i % 20}`,
      uid: `0000-${i}-uid-${rv}`,
      resourceVersion: String(rv),
      creationTimestamp: new Date(1_700_000_000_000).toISOString() as unknown as Date,
      labels: { app: `app-${i % 40}`, tier: i % 2 ? 'web' : 'worker', 'pod-template-hash': (i * 31).toString(36) },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-01-01T00:00:00Z', 'example.com/owner': 'team' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `rs-${i % 500}`,
          uid: `rs-uid-${i % 500}`,
          controller: true,
        },
      ],
    },
    spec: {
      nodeName: `node-${i % 300}`,
      containers: [container(0), container(1)],
      volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
      restartPolicy: 'Always',
    } as BenchObject['spec'],
    status: {
      phase: 'Running',
      podIP: `10.0.${(i >> 8) & 255}.${i & 255}`,
      conditions: ['Ready', 'Initialized', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True' })),
    },
  } as BenchObject;
}

/** A small ConfigMap (~300 B of JSON): two labels, three data keys. */
export function smallConfigMap(i: number, rv: number): BenchObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `settings-${i.toString(36)}`,
      namespace: `team-${i % 20}`,
      uid: `cm-${i}-${rv}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % 40}`, tier: i % 2 ? 'web' : 'worker' },
    },
    data: { mode: 'production', replicas: String(1 + (i % 5)), endpoint: `https://svc-${i % 300}.example.com/v1` },
  } as BenchObject;
}

/** One kind of object the benchmark runs on. */
export interface ObjectKind {
  readonly label: string;
  readonly make: (i: number, rv: number) => BenchObject;
  /** Stands in for the byNode index of pods: some field with a few hundred values. */
  readonly indexer: (object: BenchObject) => string | undefined;
}

export const realisticPods: ObjectKind = {
  label: `realistic pods (~${JSON.stringify(realisticPod(1, 1)).length} B)`,
  make: realisticPod,
  indexer: (object) => object.spec?.nodeName,
};

export const smallConfigMaps: ObjectKind = {
  label: `small ConfigMaps (~${JSON.stringify(smallConfigMap(1, 1)).length} B)`,
  make: smallConfigMap,
  indexer: (object) => (object as { data?: { endpoint?: string } }).data?.endpoint,
};
