/**
 * The simulated workload `npm start` drives against the embedded cluster, so a person can watch the pipeline work:
 * pods are created, updated and deleted; one pod fails a few reconciles and then succeeds; one is dropped after 5
 * retries.
 * @module
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { FAIL_ANNOTATION } from './pod-logger.js';

/** One step of the demo, with the pause before it. */
interface Step {
  readonly pauseMs: number;
  readonly describe: string;
  readonly run: (core: CoreV1Api, namespace: string) => Promise<unknown>;
}

function pod(name: string, annotations: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels: { app: 'demo' }, annotations },
    spec: { containers: [{ name: 'app', image: 'registry.example.com/demo:1.0' }] },
  };
}

const create = (name: string, annotations?: Record<string, string>) => (core: CoreV1Api, namespace: string) =>
  core.createNamespacedPod({ namespace, body: pod(name, annotations) });

/** The demo script, in order. */
export const demoSteps: readonly Step[] = [
  { pauseMs: 300, describe: 'create pod web-1', run: create('web-1') },
  { pauseMs: 300, describe: 'create pod web-2', run: create('web-2') },
  {
    pauseMs: 500,
    describe: 'label pod web-1 tier=frontend',
    run: (core, namespace) =>
      core.patchNamespacedPod(
        { namespace, name: 'web-1', body: { metadata: { labels: { tier: 'frontend' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
  },
  {
    pauseMs: 500,
    describe: `create pod flaky (${FAIL_ANNOTATION}=3: fails 3 times, then succeeds)`,
    run: create('flaky', { [FAIL_ANNOTATION]: '3' }),
  },
  {
    pauseMs: 800,
    describe: `create pod doomed (${FAIL_ANNOTATION}=always: dropped after 5 retries)`,
    run: create('doomed', { [FAIL_ANNOTATION]: 'always' }),
  },
  {
    pauseMs: 800,
    describe: 'delete pod web-2',
    run: (core, namespace) => core.deleteNamespacedPod({ namespace, name: 'web-2' }),
  },
];

/**
 * Plays {@link demoSteps} against a cluster, narrating each step through `narrate`. Resolves when the script is done;
 * stops early, between steps, once `signal` is aborted.
 */
export async function runDemoWorkload(
  kubeConfig: KubeConfig,
  namespace: string,
  narrate: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  for (const step of demoSteps) {
    await new Promise((resolve) => setTimeout(resolve, step.pauseMs));
    if (signal.aborted) return;
    narrate(`workload: ${step.describe}`);
    await step.run(core, namespace);
  }
}
