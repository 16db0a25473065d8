/**
 * `npm start` (or `npm run example -- pod-logger`): the pod logger at work.
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster and plays a small simulated workload against it.
 * - `npm start -- --kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead
 *   (no workload; it only watches).
 * - `--namespace <ns>` picks the namespace (default `default`).
 * Ctrl-C (SIGINT) or SIGTERM drains in-flight reconciles and exits; a second signal exits at once.
 * @module
 */
import { parseArgs } from 'node:util';
import { Subject } from 'rxjs';
import { connectExample, exitWhenDone, onStopSignals } from '../shared/cli.js';
import { podLogger } from './pod-logger.js';
import { runDemoWorkload } from './workload.js';

const { values } = parseArgs({
  options: { kubeconfig: { type: 'string' }, namespace: { type: 'string', default: 'default' } },
  strict: true,
});
const namespace = values.namespace ?? 'default';
const target = await connectExample('pod-logger', values.kubeconfig ?? process.env.KUBECONFIG, `, namespace ${namespace}`);

const stop$ = new Subject<void>();
const workloadAbort = new AbortController();
onStopSignals('pod-logger', () => {
  workloadAbort.abort();
  stop$.next();
});

podLogger(target.kubeConfig, { namespace, stop$ }).subscribe({ complete: () => exitWhenDone(target) });

if (target.cluster) {
  runDemoWorkload(target.kubeConfig, namespace, (line) => console.log(line), workloadAbort.signal).then(
    () => { if (!workloadAbort.signal.aborted) console.log('workload: done; still watching, Ctrl-C to stop'); },
    (error: unknown) => console.error(`workload: failed: ${String(error)}`),
  );
}
