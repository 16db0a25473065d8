/**
 * `idleTimeout` against a real kube-apiserver: its watch cache sends a watch a bookmark about every minute once the
 * cache has passed the resourceVersion the watch started from, so a watch that has had one and then stalls behind
 * a partition (a TCP proxy that passes nothing, without FIN or reset) is cut after `idleTimeout`, here 10 s, not
 * after `timeoutSeconds + 30 s`. About 75 s: the first bookmark comes a minute after the watch starts.
 */
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { firstValueFrom, type Subscription } from 'rxjs';
import { resourceClient } from '../../src/index.js';
import { startTcpProxy, type TcpProxy } from '../../src/testing/index.js';
import { listWatch, type WatchEvent, type WatchStatus } from '../../src/watch/index.js';
import { waitFor } from '../support/wait.js';
import { e2eCluster, isE2eRun } from './support/cluster.js';
import { dropNamespace, freshNamespace } from './support/informer.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

if (isE2eRun()) {
  describe('listWatch against a real kube-apiserver: idleTimeout after bookmarks (e2e)', function () {
    this.timeout(180_000);
    let core: CoreV1Api;
    let namespace: string | undefined;
    let proxy: TcpProxy | undefined;
    let watching: Subscription | undefined;

    afterEach(async () => {
      watching?.unsubscribe();
      watching = undefined;
      await proxy?.close();
      proxy = undefined;
      await dropNamespace(core, namespace);
      namespace = undefined;
    });

    it('cuts a watch that stalls after its first bookmark once idleTimeout passes, then resumes and misses nothing', async () => {
      const cluster = await e2eCluster();
      const admin = cluster.handle.kubeConfig;
      core = admin.makeApiClient(CoreV1Api);
      namespace = await freshNamespace(core, 'e2e-idle');
      const configMaps = resourceClient<V1ConfigMap>(admin, CONFIG_MAP, { namespace });
      proxy = await startTcpProxy({ targetPort: Number(new URL(cluster.handle.url).port) });

      const events: WatchEvent<V1ConfigMap>[] = [];
      watching = listWatch<V1ConfigMap>(proxy.routeThrough(admin), CONFIG_MAP, {
        namespace,
        idleTimeout: 10_000,
        backoff: { baseMs: 100, factor: 2, capMs: 1000 },
        onHealth: () => {},
      }).subscribe((event) => events.push(event));
      const errors = (): Extract<WatchStatus, { state: 'error' }>[] =>
        events.flatMap((e) => (e.type === 'status' && e.status.state === 'error' ? [e.status] : []));
      const added = (name: string): boolean =>
        events.some((e) => e.type === 'added' && e.object.metadata?.name === name);
      await waitFor(() => events.some((e) => e.type === 'relistDone'), 'the list', 30_000);

      // A write moves the watch cache past the watch's start, so that the server sends it bookmarks.
      await firstValueFrom(configMaps.create({ metadata: { name: 'poke' } }));
      await waitFor(() => events.some((e) => e.type === 'bookmark'), 'a first bookmark (about a minute)', 100_000);
      expect(errors(), 'a watch with bookmarks is not cut while they come').to.deep.equal([]);

      proxy.stall('all');
      await firstValueFrom(configMaps.create({ metadata: { name: 'during-partition' } }));
      await waitFor(() => errors().length > 0, 'the stalled watch to be cut', 30_000);
      expect(errors().map((s) => s.cause.reason)).to.deep.equal(['DeadConnection']);
      expect(errors()[0]!.cause.message).to.match(/\(idleTimeout: /);

      proxy.pass();
      await waitFor(() => added('during-partition'), 'the ConfigMap created during the partition', 30_000);
      expect(
        events.filter((e) => e.type === 'relistStarted'),
        'resumed, not relisted',
      ).to.have.length(1);
    });
  });
}
