/**
 * `idleTimeout` against the in-memory API server: its watches send a bookmark every 100 ms of wall time (15 s of the
 * reflector's clock, which runs 150× fast), so a watch that stalls after its first bookmark is dead after 90 s of
 * that clock (0.6 s), while `timeoutSeconds + 30 s` would be 330 s (2.2 s) and the stall lasts 225 s (1.5 s).
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import { startTestCluster, type TestCluster } from '../../src/testing/apiserver/index.js';
import { listWatch, type WatchEvent, type WatchStatus } from '../../src/watch/index.js';
import { fastClock } from '../integration/informer/support.js';
import { waitFor } from '../support/wait.js';

describe('listWatch against the in-memory API server: idleTimeout', () => {
  let cluster: TestCluster;
  let sub: Subscription | undefined;

  before(async () => {
    cluster = await startTestCluster({ bookmarkIntervalMs: 100 });
  });
  after(async () => {
    sub?.unsubscribe();
    await cluster.stop();
  });

  it('cuts a watch stalled after its bookmarks began once idleTimeout passes, then resumes and misses nothing', async () => {
    const events: WatchEvent[] = [];
    sub = listWatch(
      cluster.kubeConfig,
      { apiVersion: 'v1', kind: 'Pod' },
      { scheduler: fastClock(150), random: () => 0, onHealth: () => {} },
    ).subscribe((event) => events.push(event));
    const errors = (): Extract<WatchStatus, { state: 'error' }>[] =>
      events.flatMap((e) => (e.type === 'status' && e.status.state === 'error' ? [e.status] : []));
    await waitFor(() => events.some((e) => e.type === 'bookmark'), 'a first bookmark');

    cluster.faults.stallWatches(1500);
    const api = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await api.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'during-stall' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    });
    await waitFor(() => errors().length > 0, 'the stalled watch to be cut', 5000);
    // The cut comes when the reflector's clock says 90 s; a loaded machine may run the timer a few ms late.
    expect(errors().map((s) => s.cause.reason)).to.deep.equal(['DeadConnection']);
    expect(errors()[0]!.cause.message).to.match(/^no bytes for (90|91) s \(idleTimeout: /);
    await waitFor(
      () => events.some((e) => e.type === 'added' && e.object.metadata?.name === 'during-stall'),
      'the pod created during the stall',
      5000,
    );
    expect(
      events.filter((e) => e.type === 'relistStarted'),
      'resumed, not relisted',
    ).to.have.length(1);
  });
});
