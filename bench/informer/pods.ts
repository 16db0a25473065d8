/**
 * Realistic pods for the informer benchmark: what a Deployment's pods look like in a real cluster, 1–3 KB of JSON
 * each, with labels, annotations, two containers (env, ports, resources, probes), a status with conditions and
 * containerStatuses, and the managedFields entries server-side apply leaves behind.
 */

/** A plain JSON pod as the API server stores it (resourceVersion is stamped by the store). */
export type PodJson = {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: Record<string, unknown> & { name: string; namespace: string };
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
};

const NAMESPACES = 20;
const APPS = ['checkout', 'catalog', 'payments', 'search', 'auth', 'gateway', 'ledger', 'notifier'];

/** Deterministic pseudo-random hex, so every run serves identical bytes. */
function hex(seed: number, length: number): string {
  let x = (seed * 2654435761) >>> 0;
  let out = '';
  while (out.length < length) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    out += x.toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

const time = (i: number, offsetS = 0): string =>
  new Date(Date.UTC(2026, 10, 1) + (i % 86_400) * 1000 + offsetS * 1000).toISOString().replace('.000Z', 'Z');

function container(app: string, i: number, sidecar: boolean): Record<string, unknown> {
  const name = sidecar ? 'envoy' : app;
  return {
    name,
    image: sidecar ? 'envoyproxy/envoy:v1.31.2' : `registry.example.com/shop/${app}:1.${i % 40}.${i % 7}`,
    imagePullPolicy: 'IfNotPresent',
    ports: sidecar
      ? [{ name: 'admin', containerPort: 9901, protocol: 'TCP' }]
      : [
          { name: 'http', containerPort: 8080, protocol: 'TCP' },
          { name: 'metrics', containerPort: 9090 },
        ],
    env: sidecar
      ? [{ name: 'ENVOY_LOG_LEVEL', value: 'info' }]
      : [
          { name: 'APP_ENV', value: 'production' },
          { name: 'LOG_FORMAT', value: 'json' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        ],
    resources: sidecar
      ? { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } }
      : { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    ...(sidecar ? {} : { readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 } }),
  };
}

function managedFields(i: number): unknown[] {
  return [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: time(i),
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} },
          'f:ownerReferences': { '.': {}, [`k:{"uid":"${hex(i, 8)}"}`]: {} },
        },
        'f:spec': {
          'f:containers': {
            'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:env': {}, 'f:ports': {}, 'f:resources': {} },
          },
          'f:restartPolicy': {},
        },
      },
    },
    {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: time(i, 5),
      fieldsType: 'FieldsV1',
      subresource: 'status',
      fieldsV1: {
        'f:status': {
          'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } },
          'f:containerStatuses': {},
          'f:podIP': {},
          'f:startTime': {},
        },
      },
    },
  ];
}

/** The `i`-th pod of the benchmark's fleet (namespace `bench-<i mod 20>`). */
export function makePod(i: number): PodJson {
  const app = APPS[i % APPS.length]!;
  const hash = hex(i % 97, 10);
  const name = `${app}-${hash}-${hex(i + 1, 5)}`;
  const podIP = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const node = `node-${i % 300}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace: `bench-${i % NAMESPACES}`,
      uid: `${hex(i, 8)}-${hex(i + 7, 4)}-${hex(i + 9, 4)}-${hex(i + 11, 4)}-${hex(i + 13, 12)}`,
      creationTimestamp: time(i),
      labels: {
        app,
        'pod-template-hash': hash,
        'app.kubernetes.io/part-of': 'shop',
        tier: i % 3 === 0 ? 'frontend' : 'backend',
      },
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'kubectl.kubernetes.io/restartedAt': time(i, -3600),
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-${hash}`,
          uid: hex(i, 8),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: managedFields(i),
    },
    spec: {
      containers: [container(app, i, false), container(app, i, true)],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: app,
      nodeName: node,
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: time(i, 2),
      })),
      hostIP: `192.168.${(i >> 8) % 200}.${i % 250}`,
      podIP,
      startTime: time(i, 1),
      containerStatuses: [app, 'envoy'].map((c, k) => ({
        name: c,
        ready: true,
        restartCount: 0,
        state: { running: { startedAt: time(i, 3 + k) } },
        image: k === 0 ? `registry.example.com/shop/${app}:1.${i % 40}.${i % 7}` : 'envoyproxy/envoy:v1.31.2',
        containerID: `containerd://${hex(i * 3 + k, 64)}`,
      })),
      qosClass: 'Burstable',
    },
  };
}

/** The `generation`-th modification of a pod: a status heartbeat-like change (new annotation and condition time). */
export function modifyPod(pod: PodJson, generation: number): PodJson {
  const conditions = (pod.status['conditions'] as Record<string, unknown>[]).map((c, k) =>
    k === 1 ? { ...c, lastTransitionTime: time(generation) } : c,
  );
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      annotations: { ...(pod.metadata['annotations'] as object), 'bench.rxkube.io/generation': String(generation) },
    },
    status: { ...pod.status, conditions },
  };
}
