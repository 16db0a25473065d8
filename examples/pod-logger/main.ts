/**
 * `npm start`: the pod logger at work.
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster and plays a small simulated workload against it.
 * - `npm start -- --kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead
 *   (no workload; it only watches).
 * - `--namespace <ns>` picks the namespace (default `default`).
 * Ctrl-C (SIGINT) or SIGTERM drains in-flight reconciles and exits; a second signal exits at once.
 * @module
 */
import { KubeConfig } from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import { Subject } from 'rxjs';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { podLogger } from './pod-logger.js';
import { runDemoWorkload } from './workload.js';

const { values } = parseArgs({
  options: { kubeconfig: { type: 'string' }, namespace: { type: 'string', default: 'default' } },
  strict: true,
});
const namespace = values.namespace ?? 'default';
const kubeconfigPath = values.kubeconfig ?? process.env.KUBECONFIG;

let cluster: TestCluster | undefined;
const kubeConfig = new KubeConfig();
if (kubeconfigPath) {
  kubeConfig.loadFromFile(kubeconfigPath);
  console.log(`pod-logger: using ${kubeconfigPath} (context ${kubeConfig.getCurrentContext()}), namespace ${namespace}`);
} else {
  cluster = await startTestCluster();
  kubeConfig.loadFromString(cluster.kubeConfig.exportConfig());
  console.log(`pod-logger: embedded in-memory cluster at ${cluster.url}, namespace ${namespace}; Ctrl-C to stop`);
}

const stop$ = new Subject<void>();
const workloadAbort = new AbortController();
let stopping = false;
const onSignal = (): void => {
  if (stopping) process.exit(130);
  stopping = true;
  workloadAbort.abort();
  console.log('pod-logger: stopping (draining in-flight reconciles)');
  stop$.next();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

podLogger(kubeConfig, { namespace, stop$ }).subscribe({
  complete: () => {
    void (cluster?.stop() ?? Promise.resolve()).then(() => process.exit(0));
  },
});

if (cluster) {
  runDemoWorkload(kubeConfig, namespace, (line) => console.log(line), workloadAbort.signal).then(
    () => { if (!stopping) console.log('workload: done; still watching, Ctrl-C to stop'); },
    (error: unknown) => console.error(`workload: failed: ${String(error)}`),
  );
}
