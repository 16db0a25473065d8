/**
 * The one real cluster an e2e run shares: a control plane started on first use and stopped by the root hook in
 * `hooks.ts`, or the existing cluster named by `RXKUBE_E2E_KUBECONFIG`.
 *
 * Suites call `e2eCluster()` in a `before` hook; starting once per run keeps the e2e suite fast on 2 cores.
 */
import type { ClusterHandle } from '../../../src/testing/cluster.js';
import { existingCluster, startControlPlane } from '../../../src/testing/control-plane/index.js';
import type { ControlPlane } from '../../../src/testing/control-plane/index.js';

/** The shared cluster: `controlPlane` is set only when this run started it (so restart and compaction work). */
export interface E2eCluster {
  readonly handle: ClusterHandle;
  readonly controlPlane: ControlPlane | undefined;
}

/**
 * `RXKUBE_E2E_KUBECONFIG=/path/to/kubeconfig` runs the e2e and contract suites against that cluster (its current
 * context, or `RXKUBE_E2E_CONTEXT`) instead of starting kube-apiserver + etcd. Read at load time so suites can
 * decide which tests to register.
 */
export const existingKubeconfig: string | undefined = process.env.RXKUBE_E2E_KUBECONFIG || undefined;

/** True when this run owns the cluster; tests that restart kube-apiserver or compact etcd register only then. */
export const ownsControlPlane = existingKubeconfig === undefined;

/**
 * The shared cluster lives on `globalThis`, not in a module variable: mocha loads `hooks.ts` through `require` and
 * the specs through `import`, so tsx gives this file two module instances. A module variable made the root hook see
 * no cluster, leave kube-apiserver and etcd running, and keep the run from ever exiting.
 */
const SHARED = Symbol.for('rxkube.e2e.cluster');
const state = globalThis as { [SHARED]?: Promise<E2eCluster> | undefined };

/** The shared cluster, started (or loaded) on the first call. A failed start is reported to every caller. */
export function e2eCluster(): Promise<E2eCluster> {
  state[SHARED] ??= existingKubeconfig
    ? Promise.resolve().then(() => ({
        handle: existingCluster(
          existingKubeconfig,
          process.env.RXKUBE_E2E_CONTEXT ? { context: process.env.RXKUBE_E2E_CONTEXT } : {},
        ),
        controlPlane: undefined,
      }))
    : startControlPlane().then((controlPlane) => {
        process.stderr.write(`      (control plane ${controlPlane.url} ready in ${controlPlane.startMs} ms)\n`);
        return { handle: controlPlane, controlPlane };
      });
  return state[SHARED];
}

/** Stops the shared cluster if one was started; an existing cluster is left alone. */
export async function stopE2eCluster(): Promise<void> {
  const current = state[SHARED];
  state[SHARED] = undefined;
  if (!current) return;
  const cluster = await current.catch(() => undefined);
  await cluster?.handle.stop();
}

/** Set by `hooks.ts`; e2e suites register their tests only under the e2e mocha config. */
export const E2E_RUN = Symbol.for('rxkube.e2e.run');

/** True when mocha loaded the e2e root hooks (`.mocharc.e2e.json`), i.e. this is `npm run test:e2e`. */
export function isE2eRun(): boolean {
  return (globalThis as Record<symbol, unknown>)[E2E_RUN] === true;
}
