/**
 * A sharded controller in three replica processes against the real kube-apiserver with ShardedListAndWatch: the
 * ranges split fairly, a kill -9 moves the killed replica's ranges within the lease bound, and no key is ever
 * reconciled by two replicas at once (issue 31).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { expect } from 'chai';
import { resourceClient } from '../../src/index.js';
import { LEADER_JITTER_FACTOR } from '../../src/leader/index.js';
import { waitFor, waitForAsync } from '../support/wait.js';
import { e2eCluster, isE2eRun } from './support/cluster.js';
import { dropNamespace, freshNamespace } from './support/informer.js';
import { LAST_RUN } from './support/shard-replica-config.js';
import { openRanges, overlaps, runsByKey, startReplica, type Replica } from './support/shard-replicas.js';

const TIMINGS = { leaseDuration: 4_000, renewDeadline: 2_500, retryPeriod: 500 } as const;
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const RANGES = 12;
const OBJECTS = 36;
/**
 * The longest a killed replica's ranges may stay unheld: its range Leases and its member Lease expire by the
 * survivors' observation `leaseDuration` after they last saw them renewed, which they see at their next listing
 * (one jittered retry period); then a campaign takes a try or two. The rest is slack for a loaded 2-core machine.
 */
const TAKEOVER_LIMIT = TIMINGS.leaseDuration + 4 * TIMINGS.retryPeriod * (1 + LEADER_JITTER_FACTOR) + 2_000;

if (isE2eRun()) {
  describe('a sharded controller in three replica processes against kube-apiserver (e2e)', function () {
    this.timeout(120_000);
    let core: CoreV1Api;
    let namespace: string | undefined;
    let dir: string;
    const replicas: Replica[] = [];

    before(async () => {
      const cluster = await e2eCluster();
      core = cluster.handle.kubeConfig.makeApiClient(CoreV1Api);
      dir = mkdtempSync(join(tmpdir(), 'rxkube-shard-e2e-'));
      await cluster.handle.writeKubeconfig(join(dir, 'kubeconfig'));
      namespace = await freshNamespace(core, 'e2e-shards');
    });
    after(async () => {
      for (const replica of replicas) if (replica.exitedAt === undefined) replica.child.kill('SIGKILL');
      await Promise.all(replicas.map((replica) => replica.exited));
      await dropNamespace(core, namespace);
      rmSync(dir, { recursive: true, force: true });
    });

    it('splits the ranges fairly, moves a killed replica’s ranges within the lease bound, and never runs a key twice at once', async () => {
      const ns = namespace!;
      for (let i = 0; i < OBJECTS; i++)
        await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `cm-${i}` } } });
      const base = {
        kubeconfig: join(dir, 'kubeconfig'),
        namespace: ns,
        name: 'e2e-shards',
        ranges: RANGES,
        workMs: 100,
        ...TIMINGS,
      };
      for (const identity of ['one', 'two', 'three']) replicas.push(startReplica({ ...base, identity }));
      const describe = (): string =>
        replicas
          .map(
            (r) =>
              `${r.identity}: open ${openRanges(r).join(',') || '-'}${r.exitedAt ? ' (exited)' : ''}\n${r.stderr.slice(-1500)}`,
          )
          .join('\n');

      // Fair: every range held, four each.
      await waitFor(
        () =>
          replicas.every((r) => openRanges(r).length === RANGES / 3) &&
          new Set(replicas.flatMap(openRanges)).size === RANGES,
        () => `a fair split of ${RANGES} ranges over three replicas\n${describe()}`,
        60_000,
      );
      // Every object reconciled, by one replica or another.
      await waitForAsync(
        async () => {
          const list = await core.listNamespacedConfigMap({ namespace: ns });
          return list.items
            .filter((c) => c.metadata?.name?.startsWith('cm-'))
            .every((c) => c.metadata?.annotations?.[LAST_RUN] !== undefined);
        },
        () => `every ConfigMap reconciled\n${describe()}`,
        60_000,
        250,
      );

      // Keep the keys busy while a replica dies: one change every 40 ms, round-robin.
      const configMaps = resourceClient<V1ConfigMap>((await e2eCluster()).handle.kubeConfig, CONFIG_MAP, {
        namespace: ns,
      });
      let touching = true;
      const touched = (async () => {
        for (let n = 0; touching; n++) {
          await firstValueFrom(
            configMaps.patch(`cm-${n % OBJECTS}`, { type: 'merge', body: { data: { n: String(n) } } }),
          ).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
      })();

      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const victim = replicas[1]!;
      const itsRanges = openRanges(victim);
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      await victim.exited;
      await waitFor(
        () => new Set(replicas.flatMap(openRanges)).size === RANGES,
        () => `the survivors to hold every range\n${describe()}`,
        60_000,
      );
      const takenAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      touching = false;
      await touched;
      const survivors = replicas.filter((r) => r !== victim);
      process.stderr.write(
        `      kill -9 of ${victim.identity} (ranges ${itsRanges.join(',')}): all ${RANGES} ranges held again after ${takenAt - killedAt} ms (limit ${TAKEOVER_LIMIT} ms); now ${survivors.map((r) => `${r.identity} ${openRanges(r).join(',')}`).join(' / ')}\n`,
      );
      expect(takenAt - killedAt, 'takeover after kill -9').to.be.at.most(TAKEOVER_LIMIT);
      expect(overlaps(replicas), 'runs of one key on two replicas at once').to.deep.equal([]);
      // The runs were real and spread: every replica ran keys, and the survivors ran keys of the victim's ranges.
      const runs = runsByKey(replicas);
      for (const replica of replicas)
        expect(
          [...runs.values()].flat().some((run) => run.who === replica.identity),
          `${replica.identity} ran keys`,
        ).to.equal(true);
      const afterKill = [...runs.values()].flat().filter((run) => run.start > takenAt);
      expect(new Set(afterKill.map((run) => run.who))).to.deep.equal(new Set(survivors.map((r) => r.identity)));
    });
  });
}
