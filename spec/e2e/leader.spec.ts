import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';
import {
  describeSpans,
  expectNoOverlap,
  FAILOVER_LIMIT,
  FAST,
  startCandidate,
  stopAll,
  type CandidateProcess,
  type Election,
} from './support/leader.js';
import { waitFor } from '../support/wait.js';

if (isE2eRun()) {
  describe('leader election against a real kube-apiserver: candidate processes and SIGKILL', function () {
    this.timeout(120_000);
    let cluster: E2eCluster;
    let dir: string;
    const candidates: CandidateProcess[] = [];

    before(async () => {
      cluster = await e2eCluster();
      dir = mkdtempSync(join(tmpdir(), 'rxkube-leader-e2e-'));
      await cluster.handle.writeKubeconfig(join(dir, 'kubeconfig'));
    });
    after(async () => {
      await stopAll(candidates);
      rmSync(dir, { recursive: true, force: true });
    });

    const leader = (): CandidateProcess | undefined => candidates.find((c) => c.leading());

    it('three candidates: killing the leader hands over within the limit, twice, and the spans never overlap', async () => {
      const election: Election = {
        kubeconfig: join(dir, 'kubeconfig'),
        namespace: 'default',
        name: `e2e-leader-${Date.now()}`,
        ...FAST,
      };
      const origin = Date.now();
      for (const id of ['one', 'two', 'three']) candidates.push(startCandidate('rxkube', id, election));
      await waitFor(() => leader() !== undefined, 'a first leader', 30_000);
      // A failover is measured from candidates that are already watching the Lease.
      await waitFor(
        () => candidates.every((c) => c.lines.some((l) => l.event === 'leader')),
        'every candidate to see the holder',
        30_000,
      );
      const failovers: number[] = [];
      for (let round = 0; round < 2; round++) {
        const victim = leader()!;
        await new Promise((resolve) => setTimeout(resolve, 1_500)); // let it renew a few times first
        const killedAt = victim.signal('SIGKILL');
        await victim.exited;
        await waitFor(
          () => leader() !== undefined,
          () => `a successor of ${victim.identity}\n${describeSpans(candidates, origin)}`,
          20_000,
        );
        const successor = leader()!;
        failovers.push(successor.spans().at(-1)![0] - killedAt);
      }
      process.stderr.write(
        `      failover after SIGKILL: ${failovers.join(' ms, ')} ms (limit ${FAILOVER_LIMIT} ms)\n`,
      );
      process.stderr.write(`${describeSpans(candidates, origin).replace(/^/gm, '      ')}\n`);
      for (const ms of failovers) expect(ms, `failover took ${ms} ms`).to.be.at.most(FAILOVER_LIMIT);
      expectNoOverlap(candidates);

      // The last one standing holds a Lease written as client-go writes it: two holder changes counted.
      const lease = await cluster.handle.kubeConfig
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: 'default', name: election.name });
      expect(lease.spec?.holderIdentity).to.equal(leader()!.identity);
      expect(lease.spec?.leaseDurationSeconds).to.equal(4);
      expect(lease.spec?.leaseTransitions).to.equal(2);
    });

    it('SIGTERM releases the lease, so a waiting candidate takes over without waiting out leaseDuration', async () => {
      const election: Election = {
        kubeconfig: join(dir, 'kubeconfig'),
        namespace: 'default',
        name: `e2e-release-${Date.now()}`,
        ...FAST,
        leaseDuration: 60_000,
      };
      const first = startCandidate('rxkube', 'first', election);
      candidates.push(first);
      await waitFor(() => first.leading(), 'the first leader', 30_000);
      const second = startCandidate('rxkube', 'second', election);
      candidates.push(second);
      await waitFor(
        () => second.lines.some((l) => l.event === 'leader' && l.holder === 'first'),
        'the second to see the first',
        30_000,
      );
      first.signal('SIGTERM');
      await first.exited;
      expect(first.exit).to.equal('code 0');
      expect(first.lines.map((l) => l.event)).to.include('released');
      // With a 60 s lease, only the release explains a takeover within the wait below.
      await waitFor(() => second.leading(), 'the takeover after the release', 20_000);
      expectNoOverlap([first, second]);
    });
  });
}
