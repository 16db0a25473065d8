/**
 * The simulated workload `npm run example -- node-labeler` plays on the embedded cluster: nodes register, one
 * through the demo provider (labeled at once), one some other way (left alone), one before its provider has set
 * its `spec.providerID` (re-checked until it has one), and one is deleted.
 * @module
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Node } from '@kubernetes/client-node';

/** The `spec.providerID` prefix the demo's "cloud" nodes carry; the example's default condition. */
export const DEMO_PROVIDER_PREFIX = 'demo://';

/** One step of the demo, with the pause before it. */
interface Step {
  readonly pauseMs: number;
  readonly describe: string;
  readonly run: (core: CoreV1Api) => Promise<unknown>;
}

function node(name: string, providerID?: string): V1Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: providerID === undefined ? {} : { providerID },
  };
}

const register = (name: string, providerID?: string) => (core: CoreV1Api) =>
  core.createNode({ body: node(name, providerID) });

/** The demo script, in order. */
export const demoSteps: readonly Step[] = [
  {
    pauseMs: 300,
    describe: `node cloud-1 registers with providerID ${DEMO_PROVIDER_PREFIX}zone-a/cloud-1`,
    run: register('cloud-1', `${DEMO_PROVIDER_PREFIX}zone-a/cloud-1`),
  },
  {
    pauseMs: 300,
    describe: 'node onprem-1 registers with providerID baremetal://rack-7/onprem-1',
    run: register('onprem-1', 'baremetal://rack-7/onprem-1'),
  },
  {
    pauseMs: 300,
    describe: 'node cloud-2 registers before its provider has set a providerID',
    run: register('cloud-2'),
  },
  {
    pauseMs: 800,
    describe: `the cloud provider sets cloud-2's providerID to ${DEMO_PROVIDER_PREFIX}zone-b/cloud-2 (no trigger: the re-check finds it)`,
    run: (core) =>
      core.patchNode(
        { name: 'cloud-2', body: { spec: { providerID: `${DEMO_PROVIDER_PREFIX}zone-b/cloud-2` } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
  },
  { pauseMs: 500, describe: 'node onprem-1 is deleted', run: (core) => core.deleteNode({ name: 'onprem-1' }) },
];

/**
 * Plays {@link demoSteps} against a cluster, narrating each step through `narrate`. Resolves when the script is done;
 * stops early, between steps, once `signal` is aborted.
 */
export async function runNodeWorkload(
  kubeConfig: KubeConfig,
  narrate: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  for (const step of demoSteps) {
    await new Promise((resolve) => setTimeout(resolve, step.pauseMs));
    if (signal.aborted) return;
    narrate(`workload: ${step.describe}`);
    await step.run(core);
  }
}
