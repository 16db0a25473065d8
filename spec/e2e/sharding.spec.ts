import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { informer } from '../../src/informer/index.js';
import { matchesShard, splitHashSpace } from '../../src/sharding/index.js';
import { waitFor } from '../support/wait.js';
import { e2eCluster, isE2eRun } from './support/cluster.js';
import { dropNamespace, freshNamespace } from './support/informer.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
/** Deadline for an informer to sync or converge on a busy 2-core machine; a hang guard, not a timing assertion. */
const LIMIT_MS = 30_000;

if (isE2eRun()) {
  describe('sharded informers against kube-apiserver with ShardedListAndWatch (e2e)', () => {
    let core: CoreV1Api;
    let namespace: string | undefined;
    const subscriptions: { unsubscribe(): void }[] = [];

    before(async () => {
      core = (await e2eCluster()).handle.kubeConfig.makeApiClient(CoreV1Api);
    });
    beforeEach(async () => {
      namespace = await freshNamespace(core, 'e2e-shard');
    });
    afterEach(async () => {
      for (const s of subscriptions.splice(0)) s.unsubscribe();
      await dropNamespace(core, namespace);
      namespace = undefined;
    });

    it('four informers over four ranges split the objects between them, the server selecting (no warning)', async () => {
      const kubeConfig = (await e2eCluster()).handle.kubeConfig;
      const ns = namespace!;
      const uids: string[] = [];
      for (let i = 0; i < 24; i++) {
        const made = await core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: `early-${i}` } },
        });
        uids.push(made.metadata!.uid!);
      }
      const warnings: string[] = [];
      const ranges = splitHashSpace(4);
      const shards = ranges.map((range) =>
        informer<V1ConfigMap>(kubeConfig, CONFIG_MAP, {
          namespace: ns,
          shard: [range],
          onWarning: (w) => warnings.push(w.text),
        }),
      );
      for (const shard of shards) subscriptions.push(shard.events$.subscribe());
      await waitFor(() => shards.every((s) => s.current().synced), 'every shard to sync', LIMIT_MS);
      // Writes after the sync reach the one shard whose range holds them, through the sharded watch.
      for (let i = 0; i < 8; i++) {
        const made = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `late-${i}` } } });
        uids.push(made.metadata!.uid!);
      }
      const cachedUids = () => shards.map((s) => [...s.current()].map((o) => o.metadata!.uid!).sort());
      const expected = ranges.map((r) => uids.filter((uid) => matchesShard([r], { metadata: { uid } })).sort());
      await waitFor(
        () => JSON.stringify(cachedUids()) === JSON.stringify(expected),
        () => `each shard to hold its range: ${JSON.stringify(cachedUids().map((u) => u.length))}`,
        LIMIT_MS,
      );
      expect(cachedUids().flat().sort()).to.deep.equal([...uids].sort());
      expect(warnings).to.deep.equal([]);
    });
  });
}
