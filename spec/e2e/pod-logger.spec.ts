import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { FAIL_ANNOTATION, podLogger } from '../../examples/pod-logger/pod-logger.js';
import { startController } from '../../src/index.js';
import { e2eCluster, isE2eRun, ownsControlPlane, type E2eCluster } from './support/cluster.js';
import { waitFor } from '../support/wait.js';

if (isE2eRun()) {
  describe('the pod-logger example against a real kube-apiserver', function () {
    this.timeout(120000);
    let cluster: E2eCluster;
    let core: CoreV1Api;
    let subscription: Subscription | undefined;
    const namespace = `pod-logger-${Math.random().toString(36).slice(2, 8)}`;
    const body = (name: string, annotations: Record<string, string> = {}) => ({
      metadata: { name, annotations },
      spec: { containers: [{ name: 'app', image: 'registry.example.com/demo:1' }] },
    });

    before(async () => {
      cluster = await e2eCluster();
      core = cluster.handle.kubeConfig.makeApiClient(CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: namespace } } });
    });

    after(() => subscription?.unsubscribe());

    it('prints what the seed controller prints: syncs, retries then success, a drop after 5 retries, a delete', async () => {
      const lines: string[] = [];
      subscription = startController(podLogger({ namespace, print: (line) => lines.push(line) }), {
        connection: cluster.handle.kubeConfig,
      }).subscribe();
      await core.createNamespacedPod({ namespace, body: body('web') });
      await waitFor(() => lines.includes('Sync/Add/Update for Pod web'), 'web', 30000);
      await core.createNamespacedPod({ namespace, body: body('flaky', { [FAIL_ANNOTATION]: '2' }) });
      await waitFor(() => lines.includes('Sync/Add/Update for Pod flaky'), 'flaky to succeed', 30000);
      await core.createNamespacedPod({ namespace, body: body('doomed', { [FAIL_ANNOTATION]: 'always' }) });
      await waitFor(() => lines.some((line) => line.startsWith('Dropping pod')), 'doomed to be dropped', 30000);
      // Unscheduled pods are deleted at once by a real kube-apiserver (no kubelet has to confirm).
      await core.deleteNamespacedPod({ namespace, name: 'web' });
      await waitFor(() => lines.includes(`Pod ${namespace}/web does not exist anymore`), 'the delete of web', 30000);

      const failure = (attempt: number, mode: string): string =>
        `simulated failure of attempt ${attempt} (annotation ${FAIL_ANNOTATION}=${mode})`;
      // A real kube-apiserver first marks the pod for deletion (MODIFIED with deletionTimestamp), then removes it;
      // when both arrive before the key's run starts they coalesce into one run, so that sync line may or may not
      // appear, exactly as with the seed's workqueue.
      const markedForDeletion = lines.indexOf(
        'Sync/Add/Update for Pod web',
        lines.indexOf('Sync/Add/Update for Pod web') + 1,
      );
      if (markedForDeletion >= 0) lines.splice(markedForDeletion, 1);
      const retryIn = (n: number): string => `(retrying in ${5 * 2 ** (n - 1)} ms)`;
      expect(lines).to.deep.equal([
        'Starting Pod controller',
        'Pod cache synced; starting workers',
        'Sync/Add/Update for Pod web',
        ...[1, 2].map((n) => `Error syncing pod ${namespace}/flaky: ${failure(n, '2')} ${retryIn(n)}`),
        'Sync/Add/Update for Pod flaky',
        ...[1, 2, 3, 4, 5].map((n) => `Error syncing pod ${namespace}/doomed: ${failure(n, 'always')} ${retryIn(n)}`),
        `Dropping pod "${namespace}/doomed" out of the queue: ${failure(6, 'always')}`,
        `Pod ${namespace}/web does not exist anymore`,
      ]);
    });

    // Restarting kube-apiserver needs a control plane this run started; against an existing cluster it is not registered.
    if (ownsControlPlane)
      it('keeps logging after kube-apiserver restarts, without repeating itself', async () => {
        const lines: string[] = [];
        subscription?.unsubscribe();
        subscription = startController(podLogger({ namespace, print: (line) => lines.push(line) }), {
          connection: cluster.handle.kubeConfig,
        }).subscribe();
        await waitFor(() => lines.some((line) => line.startsWith('Dropping pod')), 'the initial sync to settle', 30000);
        const initial = lines.length;
        await cluster.controlPlane!.restartApiServer();
        await core.createNamespacedPod({ namespace, body: body('after-restart') });
        await waitFor(
          () => lines.includes('Sync/Add/Update for Pod after-restart'),
          'the pod created after the restart',
          60000,
        );
        // While kube-apiserver is down the logger says so (`Error watching pods: …`); nothing else may repeat.
        expect(lines.slice(initial).filter((line) => !line.startsWith('Error watching pods'))).to.deep.equal([
          'Sync/Add/Update for Pod after-restart',
        ]);
      });
  });
}
