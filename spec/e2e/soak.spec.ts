/**
 * The short soak of CI: `runSoak` (what `npm run soak` runs) at a small size against the shared control plane,
 * with every fault drawn at least once, in at most about 3 minutes. The full soak's figures are in SOAK.md.
 */
import { expect } from 'chai';
import { FAULTS, runSoak } from '../../soak/soak.js';
import { e2eCluster, isE2eRun, ownsControlPlane } from './support/cluster.js';

// Registered only with RXKUBE_E2E_SOAK=1 until it is reliable within CI's time: a PodSet whose Pod event was lost
// during a fault converges only when its expectations time out (5 minutes), so a checkpoint can wait 330 s, past this
// spec's own limit. `npm run soak` runs the same harness for as long as it needs.
if (isE2eRun() && ownsControlPlane && process.env.RXKUBE_E2E_SOAK === '1') {
  describe('the soak, short: the PodSet controller under faults against a real kube-apiserver', function () {
    this.timeout(300_000);

    it('loses no update, ends with caches equal to the server, every PodSet converged and no key run by two replicas at once, under every fault', async () => {
      const { controlPlane } = await e2eCluster();
      const report = await runSoak(controlPlane!, {
        events: 3_000,
        objects: 150,
        faultRate: 5,
        durationMs: 150_000,
        checkpoints: 2,
        writeConcurrency: 32,
        partitionMs: 6_000,
        seed: 33,
        log: (line) => process.stderr.write(`      soak: ${line}\n`),
      });
      expect(report.checkpoints.length, 'checkpoints').to.be.greaterThan(0);
      for (const checkpoint of report.checkpoints) {
        expect(checkpoint.cacheDrift, 'cache drift').to.deep.equal([]);
        expect(checkpoint.unconverged, 'unconverged PodSets').to.deep.equal([]);
        expect(checkpoint.lostUpdates, 'lost updates').to.deep.equal([]);
        expect(checkpoint.overlaps, 'overlapping runs').to.deep.equal([]);
      }
      for (const fault of FAULTS) expect(report.faults[fault], fault).to.be.greaterThan(0);
      const { succeeded, unknown, value } = report.counters;
      expect(value).to.be.within(succeeded, succeeded + unknown);
      expect(report.reconciles).to.be.greaterThan(0);
      // Two minutes are too short for a heap trend (it needs minutes of troughs); the readings must come in.
      expect(report.heapSamples.length, 'heap readings').to.be.greaterThan(0);
    });
  });
}
