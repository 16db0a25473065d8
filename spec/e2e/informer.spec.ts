import { CoreV1Api, type V1ConfigMap, type V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import { informer, type Informer } from '../../src/informer/index.js';
import type { BackoffPolicy } from '../../src/backoff/index.js';
import { expectConverged, podLister, record, waitFor, type Recording } from '../integration/informer/support.js';
import { podWriter } from '../integration/informer/writes.js';
import { e2eCluster, isE2eRun, ownsControlPlane } from './support/cluster.js';
import type { E2eCluster } from './support/cluster.js';
import {
  cuttableLink,
  dropNamespace,
  freshNamespace,
  pointedAt,
  recordingTransport,
  type CuttableLink,
} from './support/informer.js';

const POD = { apiVersion: 'v1', kind: 'Pod' } as const;
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

/**
 * Retries stay short so that a cut-off or a restart is followed by a reconnect within a second or so; the
 * reflector's code path is the same as with the default 800 ms × 2, cap 30 s.
 */
const QUICK_BACKOFF: BackoffPolicy = { baseMs: 100, factor: 2, capMs: 1000 };

/** Deadline for an informer to (re)sync on a busy 2-core machine; a hang guard, not a timing assertion. */
const SYNC_LIMIT_MS = 30_000;

if (isE2eRun()) {
  describe('informer against a real kube-apiserver (e2e)', () => {
    let cluster: E2eCluster;
    let core: CoreV1Api;
    let namespace: string | undefined;
    let otherNamespace: string | undefined;
    let recording: Recording<V1Pod> | Recording<V1ConfigMap> | undefined;
    let link: CuttableLink | undefined;

    before(async () => {
      cluster = await e2eCluster();
      core = cluster.handle.kubeConfig.makeApiClient(CoreV1Api);
    });

    beforeEach(async () => {
      namespace = await freshNamespace(core);
    });

    afterEach(async () => {
      recording?.subscription.unsubscribe();
      recording = undefined;
      await link?.close();
      link = undefined;
      await dropNamespace(core, namespace);
      await dropNamespace(core, otherNamespace);
      namespace = otherNamespace = undefined;
    });

    const keyOf = (name: string): string => `${namespace}/${name}`;
    const synced = (subject: Informer<V1Pod> | Informer<V1ConfigMap>, what = 'the informer to sync'): Promise<void> =>
      waitFor(() => subject.current().synced, what, SYNC_LIMIT_MS);

    if (ownsControlPlane) {
      it('relists after a forced 410 and converges, with a stateUnknown tombstone for a pod deleted while cut off', async () => {
        const controlPlane = cluster.controlPlane!;
        const ns = namespace!;
        const writes = podWriter(cluster.handle, ns);
        await writes.create('keep');
        const doomed = await writes.create('doomed');
        const edited = await writes.create('edited', { v: '1' });

        link = await cuttableLink(cluster.handle.url);
        const pods = informer<V1Pod>(pointedAt(cluster.handle.kubeConfig, link.url), POD, {
          namespace: ns,
          backoff: QUICK_BACKOFF,
        });
        const rec = record(pods);
        recording = rec;
        await synced(pods);
        await expectConverged(pods, rec, podLister(cluster.handle, ns));

        link.cut();
        await writes.remove('doomed');
        const relabelled = await writes.relabel('edited', { v: '2' });
        await writes.create('born');
        await controlPlane.compactEtcd();
        await controlPlane.restartApiServer();
        expect(
          pods.current().has(keyOf('doomed')) && !pods.current().has(keyOf('born')),
          'the informer saw nothing while cut off',
        ).to.equal(true);
        link.restore();

        await waitFor(
          () => rec.lists() >= 2 && pods.current().has(keyOf('born')),
          'the relist after 410',
          SYNC_LIMIT_MS,
        );
        await expectConverged(pods, rec, podLister(cluster.handle, ns));
        expect(rec.lists(), 'one initial list and one relist').to.equal(2);
        const expired = rec.statuses.filter((s) => s.state === 'error' && s.cause.code === 410);
        expect(
          expired.map((s) => s.state === 'error' && s.cause.reason),
          'the watch from the old version was expired',
        ).to.deep.equal(['Expired']);
        const tombstones = rec.of('deleted', keyOf('doomed'));
        expect(tombstones, 'exactly one delete for the pod removed while cut off').to.have.length(1);
        const [tombstone] = tombstones;
        expect(tombstone?.type === 'deleted' && tombstone.stateUnknown, 'the delete is a relist tombstone').to.equal(
          true,
        );
        expect(tombstone?.object.metadata?.resourceVersion, 'the tombstone is the last known object').to.equal(
          doomed.metadata!.resourceVersion,
        );
        const updates = rec.of('updated', keyOf('edited'));
        expect(
          updates.map(
            (e) => e.type === 'updated' && [e.old.metadata?.resourceVersion, e.object.metadata?.resourceVersion],
          ),
        ).to.deep.equal([[edited.metadata!.resourceVersion, relabelled.metadata!.resourceVersion]]);
        expect(rec.of('added', keyOf('born')), 'the pod created while cut off').to.have.length(1);
        expect(rec.of('added', keyOf('keep')), 'the untouched pod is not added twice').to.have.length(1);
      });

      it('survives a kube-apiserver restart: writes made after it arrive once each', async () => {
        const controlPlane = cluster.controlPlane!;
        const ns = namespace!;
        const writes = podWriter(cluster.handle, ns);
        await writes.create('before');
        await writes.create('gone');
        const pods = informer<V1Pod>(cluster.handle.kubeConfig, POD, { namespace: ns, backoff: QUICK_BACKOFF });
        const rec = record(pods);
        recording = rec;
        await synced(pods);
        const statusesBeforeRestart = rec.statuses.length;

        await controlPlane.restartApiServer();
        await writes.create('after');
        await writes.relabel('before', { restarted: 'yes' });
        await writes.remove('gone');

        await waitFor(() => pods.current().has(keyOf('after')), 'the first write after the restart', SYNC_LIMIT_MS);
        await expectConverged(pods, rec, podLister(cluster.handle, ns));
        const afterRestart = rec.statuses.slice(statusesBeforeRestart).map((s) => s.state);
        expect(afterRestart, 'the informer noticed the restart and reconnected').to.include('connecting');
        expect(afterRestart.at(-1), 'and is watching again').to.equal('watching');
        expect(rec.of('added', keyOf('after'))).to.have.length(1);
        expect(
          rec.of('added', keyOf('before')),
          'no duplicate add for a pod that existed before the restart',
        ).to.have.length(1);
        expect(rec.of('deleted', keyOf('gone'))).to.have.length(1);
        expect(pods.current().get(keyOf('before'))?.metadata?.labels).to.deep.equal({ restarted: 'yes' });
      });
    }

    it('caches a listed object with its apiVersion and kind, which kube-apiserver leaves out of list items', async () => {
      const ns = namespace!;
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'listed' }, data: { a: '1' } } });
      const raw = await cluster.handle.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: ns });
      expect(raw.items[0]?.kind, 'the server sends list items bare').to.equal(undefined);
      const configMaps = informer<V1ConfigMap>(cluster.handle.kubeConfig, CONFIG_MAP, { namespace: ns });
      recording = record(configMaps);
      await synced(configMaps);
      expect(configMaps.current().get(keyOf('listed'))).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    });

    it('syncs a streaming list from the initial-events-end bookmark without any paginated LIST', async () => {
      const ns = namespace!;
      const writes = podWriter(cluster.handle, ns);
      for (const name of ['p1', 'p2', 'p3', 'p4']) await writes.create(name);
      await writes.remove('p4');
      const wire = recordingTransport(cluster.handle.kubeConfig);
      const pods = informer<V1Pod>(cluster.handle.kubeConfig, POD, {
        namespace: ns,
        streamingList: true,
        transport: wire.transport,
      });
      const rec = record(pods);
      recording = rec;
      await synced(pods);
      const syncedAt = pods.current().resourceVersion;

      const collection = `/api/v1/namespaces/${ns}/pods`;
      expect(
        wire.requests.filter((r) => r.kind === 'get' && r.path === collection),
        'LIST requests',
      ).to.deep.equal([]);
      const [first] = wire.requests.filter((r) => r.kind === 'watch');
      expect(first?.path).to.equal(collection);
      expect(first?.query).to.include({
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
      });
      expect(
        rec.statuses.map((s) => s.state),
        'no error and no fallback',
      ).to.deep.equal(['connecting', 'listing', 'watching']);
      const endMarks = wire.bookmarks.filter((b) => b.initialEventsEnd);
      expect(endMarks, 'one initial-events-end bookmark').to.have.length(1);
      expect(syncedAt, 'synced at the initial-events-end bookmark').to.equal(endMarks[0]!.resourceVersion);
      expect(rec.events.map((e) => `${e.type} ${e.key}`).sort()).to.deep.equal(
        ['p1', 'p2', 'p3'].map((n) => `added ${keyOf(n)}`),
      );
      await expectConverged(pods, rec, podLister(cluster.handle, ns));
    });

    it('advances current().resourceVersion from a periodic watch bookmark, with no event delivered', async function () {
      // kube-apiserver's watch cache sends each watcher a bookmark about a minute after the watch starts
      // (bookmarkFrequency); a write of the same resource in another namespace moves the version it carries.
      this.timeout(110_000);
      const ns = namespace!;
      otherNamespace = await freshNamespace(core);
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'here' } } });
      const wire = recordingTransport(cluster.handle.kubeConfig);
      const configMaps = informer<V1ConfigMap>(cluster.handle.kubeConfig, CONFIG_MAP, {
        namespace: ns,
        transport: wire.transport,
      });
      const rec = record(configMaps);
      recording = rec;
      await synced(configMaps);
      const listedAt = configMaps.current().resourceVersion;
      const eventsAtSync = rec.events.length;

      const elsewhere = await core.createNamespacedConfigMap({
        namespace: otherNamespace,
        body: { metadata: { name: 'elsewhere' } },
      });
      await waitFor(
        () => configMaps.current().resourceVersion !== listedAt,
        'a bookmark to advance the resourceVersion',
        80_000,
      );

      const watches = wire.requests.filter((r) => r.kind === 'watch');
      expect(watches.length, 'watch requests').to.be.greaterThan(0);
      for (const watch of watches)
        expect(watch.query.allowWatchBookmarks, 'allowWatchBookmarks on every watch').to.equal(true);
      const advancedTo = configMaps.current().resourceVersion;
      expect(
        wire.bookmarks.map((b) => b.resourceVersion),
        'the new version came on a BOOKMARK line',
      ).to.include(advancedTo);
      expect(rec.events.length, 'no informer event was delivered meanwhile').to.equal(eventsAtSync);
      // etcd-backed versions are revisions: numeric order is meaningful here, though opaque to the informer.
      expect(Number(advancedTo), 'the bookmark covers the write in the other namespace').to.be.at.least(
        Number(elsewhere.metadata!.resourceVersion),
      );
      expect(configMaps.current().size).to.equal(1);
    });
  });
}
