/**
 * RBAC checks for the deployed examples: what a kubeconfig's user may do, asked as kubectl asks it
 * (`kubectl auth can-i`, a SelfSubjectAccessReview as that user), and a Pod the restricted Pod Security profile
 * admits.
 */
import { CoreV1Api, KubeConfig, type V1ConfigMap, type V1OwnerReference, type V1Pod } from '@kubernetes/client-node';
import { waitForAsync } from '../../support/wait.js';
import { kubectl } from './deployed.js';

/**
 * Asks `kubectl auth can-i <question>` as the user of `kubeconfig` for each `"yes <question>"` or
 * `"no <question>"`, e.g. `no delete nodes`, `yes patch podsets.examples.rxkube.io --subresource=status -n web`;
 * resolves with the questions answered otherwise (empty when every answer is as expected).
 */
export async function canI(kubeconfig: string, expectations: readonly string[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const expectation of expectations) {
    const [expected, ...question] = expectation.split(' ');
    if (expected !== 'yes' && expected !== 'no')
      throw new TypeError(`canI: "${expectation}" must start with yes or no`);
    const answer = await kubectl(kubeconfig, ['auth', 'can-i', ...question]);
    const said = answer.stdout.trim();
    if (said !== 'yes' && said !== 'no')
      throw new Error(`kubectl auth can-i ${question.join(' ')}: ${answer.stderr || said}`);
    if (said !== expected) wrong.push(`${expectation} (kubectl says ${said})`);
  }
  return wrong;
}

/** A Pod that the restricted Pod Security profile admits (the examples' namespace enforces it). */
export function restrictedPod(name: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/demo:1',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        },
      ],
    },
  };
}

/**
 * Waits until kube-apiserver's OwnerReferencesPermissionEnforcement plugin knows the owner kind of `owned`'s
 * references. The plugin maps an owner's kind through a discovery cache of its own, reset every 30 s, so for a while
 * after a CRD is installed it refuses `blockOwnerDeletion` on a reference to the new kind, to every user but those
 * who may finalize anything (the admin): the probe is a dry-run create as `kubeconfig`'s user.
 */
export async function untilOwnerKindAdmitted(
  kubeconfig: string,
  namespace: string,
  owned: V1Pod | V1ConfigMap,
): Promise<void> {
  const user = new KubeConfig();
  user.loadFromFile(kubeconfig);
  const core = user.makeApiClient(CoreV1Api);
  const create = (): Promise<unknown> =>
    owned.kind === 'ConfigMap'
      ? core.createNamespacedConfigMap({ namespace, body: owned, dryRun: 'All' })
      : core.createNamespacedPod({ namespace, body: owned as V1Pod, dryRun: 'All' });
  let last = '';
  await waitForAsync(
    () =>
      create().then(
        () => true,
        (error: unknown) => {
          last = String((error as Error).message ?? error);
          return false;
        },
      ),
    () => `the owner kind to be admitted (last refusal: ${last})`,
    60_000,
    500,
  );
}

/** A controller reference with `blockOwnerDeletion` to an owner that need not exist (for dry-run probes). */
export function ownerReference(apiVersion: string, kind: string): V1OwnerReference {
  return {
    apiVersion,
    kind,
    name: 'probe',
    uid: '00000000-0000-0000-0000-000000000000',
    controller: true,
    blockOwnerDeletion: true,
  };
}
