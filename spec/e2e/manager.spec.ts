import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { LEADER_JITTER_FACTOR } from '../../src/leader/index.js';
import { SLEEP_ANNOTATION } from '../../examples/pod-logger/pod-logger.js';
import { expectDisjoint, spansOf } from '../leader/spans.js';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';
import { FAILOVER_LIMIT, FAST } from './support/leader.js';
import {
  startManagerProcess,
  stopManagers,
  urlsOf,
  type ManagerProcess,
  type ManagerRun,
} from './support/manager-process.js';
import { waitFor } from '../support/wait.js';

/** A candidate's longest wait between two tries (client-go's jitter), plus the slack the leader spec allows. */
const TAKEOVER_AFTER_RELEASE_LIMIT = FAST.retryPeriod * (1 + LEADER_JITTER_FACTOR) + 1_000;

if (isE2eRun()) {
  describe('the manager against a real kube-apiserver: npm start processes, SIGKILL and SIGTERM', function () {
    this.timeout(120_000);
    let cluster: E2eCluster;
    let core: CoreV1Api;
    let dir: string;
    const processes: ManagerProcess[] = [];

    before(async () => {
      cluster = await e2eCluster();
      core = cluster.handle.kubeConfig.makeApiClient(CoreV1Api);
      dir = mkdtempSync(join(tmpdir(), 'rxkube-manager-e2e-'));
      await cluster.handle.writeKubeconfig(join(dir, 'kubeconfig'));
    });
    after(async () => {
      await stopManagers(processes);
      rmSync(dir, { recursive: true, force: true });
    });

    async function freshRun(leaseDuration: number): Promise<ManagerRun> {
      const namespace = `manager-e2e-${Math.random().toString(36).slice(2, 8)}`;
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      return { kubeconfig: join(dir, 'kubeconfig'), namespace, ...FAST, leaseDuration };
    }

    const start = (identity: string, run: ManagerRun): ManagerProcess => {
      const p = startManagerProcess(identity, run);
      processes.push(p);
      return p;
    };
    const pod = (name: string, annotations: Record<string, string> = {}) => ({
      metadata: { name, annotations },
      spec: { containers: [{ name: 'app', image: 'registry.example.com/demo:1' }] },
    });
    const describeAll = (list: readonly ManagerProcess[]): string =>
      list
        .map((p) => `--- ${p.identity} (${p.exit ?? 'running'})\n${p.lines.join('\n')}\n${p.stderr().slice(-3_000)}`)
        .join('\n');

    it('two processes lead one at a time from warm caches; killing the leader hands over within the limit, without overlap', async () => {
      const run = await freshRun(FAST.leaseDuration);
      const pair = [start('one', run), start('two', run)];
      const leader = (): ManagerProcess | undefined => pair.find((p) => p.leading());
      await waitFor(
        () => leader() !== undefined,
        () => `a first leader\n${describeAll(pair)}`,
        30_000,
      );
      await waitFor(
        () =>
          pair.every(
            (p) =>
              p.when('lease holder observed') !== undefined && p.lines.includes('Pod cache synced; starting workers'),
          ),
        () => `both warm and watching the Lease\n${describeAll(pair)}`,
        30_000,
      );
      const first = leader()!;
      const standby = pair.find((p) => p !== first)!;
      // The standby is ready (synced, healthy) without leading, and reconciles nothing.
      expect((await fetch(`${urlsOf(standby)!.health}/readyz`)).status).to.equal(200);
      await core.createNamespacedPod({ namespace: run.namespace, body: pod('before') });
      await waitFor(
        () => first.lines.includes('Sync/Add/Update for Pod before'),
        'the leader to sync pod before',
        30_000,
      );
      expect(standby.lines.filter((line) => line.startsWith('Sync/Add/Update'))).to.deep.equal([]);
      const metrics = await (await fetch(`${urlsOf(standby)!.metrics}/metrics`)).text();
      expect(metrics).to.contain('leader_election_master_status{name="pod-logger"} 0');

      await new Promise((resolve) => setTimeout(resolve, 1_500)); // let it renew a few times first
      const killedAt = first.signal('SIGKILL');
      await first.exited;
      await waitFor(
        () => standby.leading(),
        () => `the standby to take over\n${describeAll(pair)}`,
        20_000,
      );
      const failover = standby.spans()[0]![0] - killedAt;
      process.stderr.write(`      manager failover after SIGKILL: ${failover} ms (limit ${FAILOVER_LIMIT} ms)\n`);
      expect(failover).to.be.at.most(FAILOVER_LIMIT);
      // The new leader reconciles from its warm cache at once, and what comes next.
      await waitFor(
        () => standby.lines.includes('Sync/Add/Update for Pod before'),
        'the new leader to resync pod before',
        10_000,
      );
      await core.createNamespacedPod({ namespace: run.namespace, body: pod('after') });
      await waitFor(
        () => standby.lines.includes('Sync/Add/Update for Pod after'),
        'the new leader to sync pod after',
        30_000,
      );
      expect(first.lines).to.not.include('Sync/Add/Update for Pod after');
      expectDisjoint(spansOf(pair));
    });

    it('SIGTERM during a long reconcile drains it, releases the Lease, exits 0, and the standby takes over at its next try', async () => {
      // A 60 s Lease: only the release can explain a takeover within seconds.
      const run = await freshRun(60_000);
      const first = start('first', run);
      await waitFor(
        () => first.leading(),
        () => `the first leader\n${describeAll([first])}`,
        30_000,
      );
      const second = start('second', run);
      await waitFor(
        () => second.when('lease holder observed', { holder: 'first' }) !== undefined,
        () => `the second to see the first\n${describeAll([first, second])}`,
        30_000,
      );
      await core.createNamespacedPod({ namespace: run.namespace, body: pod('slow', { [SLEEP_ANNOTATION]: '3000' }) });
      await waitFor(
        () => first.lines.includes('Working on Pod slow for 3000 ms'),
        'the long reconcile to start',
        30_000,
      );

      const signalledAt = first.signal('SIGTERM');
      await first.exited;
      expect(first.exit, describeAll([first])).to.equal('code 0');
      // The run in flight finished (not aborted) before the Lease was handed back.
      expect(first.lines).to.include('Sync/Add/Update for Pod slow');
      expect(first.records.find((r) => r.msg === 'drained')).to.include({ clean: true, cancelled: 0 });
      const drainedAt = first.when('drained')!;
      const releasedAt = first.when('lease released')!;
      expect(releasedAt).to.be.at.least(drainedAt);
      await waitFor(
        () => second.leading(),
        () => `the takeover after the release\n${describeAll([first, second])}`,
        20_000,
      );
      const takeover = second.spans()[0]![0] - releasedAt;
      process.stderr.write(
        `      SIGTERM drain: ${drainedAt - signalledAt} ms; release to takeover: ${takeover} ms (limit ${TAKEOVER_AFTER_RELEASE_LIMIT} ms)\n`,
      );
      expect(takeover).to.be.at.most(TAKEOVER_AFTER_RELEASE_LIMIT);
      expectDisjoint(spansOf([first, second]));
    });
  });
}
