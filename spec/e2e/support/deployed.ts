/**
 * The examples as their `deploy/` folders run them, on the e2e cluster: kubectl with a kubeconfig, a kubeconfig of a
 * ServiceAccount's own token (TokenRequest API), and an example started with its Deployment's command, args and
 * env from the image's files, with that kubeconfig in place of the Pod's in-cluster config.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { buildKubeConfig, writeKubeConfigFile } from '../../../src/testing/kubeconfig.js';
import {
  containerStart,
  DEPLOY_NAMESPACE,
  deployedContainer,
  type DeployFolder,
} from '../../../examples/shared/deploy-support.js';
import { spawnNode, type ExampleProcess } from '../../../examples/shared/spec-support.js';

const run = promisify(execFile);

/** What kubectl said; a non-zero exit is a result, not a throw. */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl (from PATH, as spec/testing/cli/kubectl.spec.ts does) with `kubeconfig`. */
export async function kubectl(kubeconfig: string, args: readonly string[]): Promise<KubectlResult> {
  try {
    const { stdout, stderr } = await run('kubectl', [...args], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
    };
  }
}

/**
 * Writes a kubeconfig at `path` that authenticates as the ServiceAccount `namespace/name` with a token the API
 * server issues for it (TokenRequest, one hour), to the admin's cluster. It carries no other credential: the
 * ServiceAccount's RBAC is all it may do.
 */
export async function serviceAccountKubeconfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
  path: string,
): Promise<void> {
  const { status } = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster()!;
  const caPem = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : undefined;
  const kubeConfig = buildKubeConfig({
    name: 'e2e',
    url: cluster.server,
    ...(caPem ? { caPem } : {}),
    user: `system:serviceaccount:${namespace}:${name}`,
    token: status!.token,
  });
  await writeKubeConfigFile(kubeConfig, path);
}

/**
 * Starts the example of `folder` as its Deployment's container does (the command, args and env, `$(POD_NAMESPACE)`
 * as the Pod's namespace), from `app` (the image's files), with `kubeconfig` instead of the in-cluster config (a
 * kubeconfig given wins over `RXKUBE_IN_CLUSTER`), metrics and probes on free ports of 127.0.0.1, and stdin as a
 * lifeline: ending it stops the example gracefully.
 */
export function startDeployed(app: string, folder: DeployFolder, kubeconfig: string): ExampleProcess {
  const { nodeOptions, script, args, env } = containerStart(deployedContainer(folder).container, {
    'metadata.namespace': DEPLOY_NAMESPACE,
  });
  return spawnNode(
    [
      ...nodeOptions,
      script,
      ...args,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
      '--kubeconfig',
      kubeconfig,
      '--stop-on-stdin-eof',
    ],
    { env, cwd: app, stdin: true },
  );
}

/** Ends the lifeline and waits for the exit: `[code, signal]`. */
export async function stopDeployed(example: ExampleProcess): Promise<[number | null, string | null]> {
  example.child.stdin?.end();
  return example.exited;
}

/** The lines of an example's output (stdout, and the manager's JSON records on stderr) that report a refusal. */
export function refusals(example: ExampleProcess): string[] {
  return example
    .output()
    .split('\n')
    .filter((line) => /forbidden|\b403\b/i.test(line));
}

/**
 * Creates the examples' namespace as the guide does (examples/DEPLOY.md), if it is not there: labelled to enforce
 * and warn about the restricted Pod Security profile, which the Deployments meet.
 */
export async function ensureDeployNamespace(core: CoreV1Api): Promise<void> {
  const labels = {
    'pod-security.kubernetes.io/enforce': 'restricted',
    'pod-security.kubernetes.io/warn': 'restricted',
  };
  await core.createNamespace({ body: { metadata: { name: DEPLOY_NAMESPACE, labels } } }).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
}
