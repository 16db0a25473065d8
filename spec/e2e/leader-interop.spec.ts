import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';
import {
  CLIENT_GO_FAILOVER_LIMIT,
  describeSpans,
  expectNoOverlap,
  FAILOVER_LIMIT,
  FAST,
  interopBinary,
  startCandidate,
  stopAll,
  type CandidateProcess,
  type Election,
} from './support/leader.js';
import { waitFor } from '../support/wait.js';

if (isE2eRun()) {
  describe('leader election shared with client-go (test/leader-interop) on a real kube-apiserver', function () {
    this.timeout(300_000);
    let cluster: E2eCluster;
    let dir: string;
    const candidates: CandidateProcess[] = [];

    before(async function () {
      this.timeout(600_000); // a cold `go build` of client-go takes minutes on 2 cores
      interopBinary();
      cluster = await e2eCluster();
      dir = mkdtempSync(join(tmpdir(), 'rxkube-leader-interop-'));
      await cluster.handle.writeKubeconfig(join(dir, 'kubeconfig'));
    });
    after(async () => {
      await stopAll(candidates);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    const election = (name: string, overrides: Partial<Election> = {}): Election => ({
      kubeconfig: join(dir, 'kubeconfig'),
      namespace: 'default',
      name: `${name}-${Date.now()}`,
      ...FAST,
      ...overrides,
    });
    const leader = (among: readonly CandidateProcess[]): CandidateProcess | undefined => among.find((c) => c.leading());
    const start = (implementation: CandidateProcess['implementation'], id: string, on: Election): CandidateProcess => {
      const candidate = startCandidate(implementation, id, on);
      candidates.push(candidate);
      return candidate;
    };

    it('never lead at once, and each takes over when the other is killed', async () => {
      const on = election('interop-kill');
      const origin = Date.now();
      const round: CandidateProcess[] = [start('rxkube', 'rx-1', on), start('client-go', 'go-1', on)];
      await waitFor(() => leader(round) !== undefined, 'a first leader', 30_000);
      // A failover is measured from candidates that are already watching (node + tsx start slower than Go).
      await waitFor(
        () => round.every((c) => c.lines.some((l) => l.event === 'leader')),
        'both candidates to see the holder',
        30_000,
      );
      const handovers: string[] = [];
      // Whoever leads first is killed and replaced by a fresh candidate of its own kind, so the next kill hands the
      // lease back the other way: rxkube → client-go and client-go → rxkube, in some order.
      for (let i = 0; i < 2; i++) {
        const victim = leader(round)!;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const killedAt = victim.signal('SIGKILL');
        await victim.exited;
        round.splice(round.indexOf(victim), 1);
        await waitFor(
          () => leader(round) !== undefined,
          () => `a successor of ${victim.identity}\n${describeSpans(candidates, origin)}`,
          20_000,
        );
        const successor = leader(round)!;
        const ms = successor.spans().at(-1)![0] - killedAt;
        handovers.push(`${victim.implementation} → ${successor.implementation} in ${ms} ms`);
        const limit = successor.implementation === 'rxkube' ? FAILOVER_LIMIT : CLIENT_GO_FAILOVER_LIMIT;
        expect(ms, `${victim.identity} → ${successor.identity}`).to.be.at.most(limit);
        round.push(start(victim.implementation, `${victim.implementation === 'rxkube' ? 'rx' : 'go'}-${i + 2}`, on));
        await waitFor(
          () => round.at(-1)!.lines.some((l) => l.event === 'leader'),
          'the new candidate to see the holder',
          30_000,
        );
      }
      process.stderr.write(
        `      ${handovers.join('; ')} (limits: to rxkube ${FAILOVER_LIMIT} ms, to client-go ${CLIENT_GO_FAILOVER_LIMIT} ms)\n`,
      );
      process.stderr.write(`${describeSpans(candidates, origin).replace(/^/gm, '      ')}\n`);
      expect(handovers.map((h) => h.split(' in ')[0]).sort()).to.deep.equal([
        'client-go → rxkube',
        'rxkube → client-go',
      ]);
      expectNoOverlap(candidates);
      const lease = await cluster.handle.kubeConfig
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: 'default', name: on.name });
      expect(lease.spec?.leaseTransitions).to.equal(2);
      expect(lease.spec?.holderIdentity).to.equal(leader(round)!.identity);
    });

    for (const [from, to] of [
      ['client-go', 'rxkube'],
      ['rxkube', 'client-go'],
    ] as const) {
      it(`a ${from} leader stopped with SIGTERM releases the lease to a ${to} candidate at once`, async () => {
        const on = election(`interop-release-${from}`, { leaseDuration: 60_000 });
        const first = start(from, `${from}-first`, on);
        await waitFor(() => first.leading(), 'the first leader', 30_000);
        const second = start(to, `${to}-second`, on);
        await waitFor(
          () => second.lines.some((l) => l.event === 'leader' && l.holder === first.identity),
          'the second to see the first',
          30_000,
        );
        first.signal('SIGTERM');
        await first.exited;
        expect(first.exit).to.equal('code 0');
        // With a 60 s lease, only the release explains a takeover within the wait below.
        await waitFor(() => second.leading(), 'the takeover after the release', 20_000);
        expectNoOverlap([first, second]);
      });
    }
  });
}
