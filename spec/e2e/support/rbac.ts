/**
 * RBAC checks for the deployed examples: what a kubeconfig's user may do, asked as kubectl asks it
 * (`kubectl auth can-i`, a SelfSubjectAccessReview as that user), and a Pod the restricted Pod Security profile
 * admits.
 */
import type { V1Pod } from '@kubernetes/client-node';
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
    if (expected !== 'yes' && expected !== 'no') throw new TypeError(`canI: "${expectation}" must start with yes or no`);
    const answer = await kubectl(kubeconfig, ['auth', 'can-i', ...question]);
    const said = answer.stdout.trim();
    if (said !== 'yes' && said !== 'no') throw new Error(`kubectl auth can-i ${question.join(' ')}: ${answer.stderr || said}`);
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
      containers: [{
        name: 'app', image: 'registry.example.com/demo:1',
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      }],
    },
  };
}
