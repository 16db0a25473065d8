/**
 * The short soak of CI: `runSoak` (what `npm run soak` runs) at a small size, on a control plane of its own (its
 * kube-apiserver ends watches after 15 to 30 s, `--min-request-timeout`), with every fault at least once, in about
 * 3 minutes. The controller's expectations time out after 10 s, so a checkpoint converges within seconds even when a
 * fault lost a Pod event, and waits at most `convergenceBoundMs` (70 s) without progress. The full soak's figures are in
 * SOAK.md.
 */
import { expect } from 'chai';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { checkpointCapMs, FAULTS, runSoak, soakControlPlaneOptions, type SoakOptions } from '../../soak/soak.js';
import { isE2eRun, ownsControlPlane } from './support/cluster.js';

const SHORT_SOAK: Omit<SoakOptions, 'log'> = {
  events: 6_000,
  objects: 300,
  faultRate: 6,
  durationMs: 120_000,
  checkpoints: 2,
  writeConcurrency: 32,
  expectationsTimeoutMs: 10_000,
  controllerWorkers: 16,
  minRequestTimeoutS: 15,
  partitionMs: 12_000,
  seed: 33,
};

if (isE2eRun() && ownsControlPlane) {
  describe('the soak, short: the PodSet controller under faults against a real kube-apiserver', function () {
    // Writing (at most durationMs), two checkpoints (each at most its cap), start and teardown.
    this.timeout(SHORT_SOAK.durationMs + 2 * checkpointCapMs(SHORT_SOAK) + 90_000);
    let controlPlane: ControlPlane | undefined;

    before(async () => {
      controlPlane = await startControlPlane(soakControlPlaneOptions(SHORT_SOAK));
    });
    after(async () => {
      await controlPlane?.stop();
    });

    it('loses no update, ends with every cache (the replicas’ too) equal to the server, every PodSet converged and no key run by two replicas at once, under every fault', async () => {
      const report = await runSoak(controlPlane!, {
        ...SHORT_SOAK,
        // The replicas' logs are kept (and their directory named) whenever a checkpoint is not clean.
        keepLogs: process.env.RXKUBE_SOAK_KEEP_LOGS === '1',
        log: (line) => process.stderr.write(`      soak: ${line}\n`),
      });
      expect(report.checkpoints.length, 'checkpoints').to.be.greaterThan(0);
      for (const checkpoint of report.checkpoints) {
        expect(checkpoint.cacheDrift, 'cache drift').to.deep.equal([]);
        expect(checkpoint.replicaCacheDrift, 'replica cache drift').to.deep.equal([]);
        expect(checkpoint.unconverged, 'unconverged PodSets').to.deep.equal([]);
        expect(checkpoint.lostUpdates, 'lost updates').to.deep.equal([]);
        expect(checkpoint.overlaps, 'overlapping runs').to.deep.equal([]);
        expect(checkpoint.convergedInMs, 'convergence').to.be.at.most(checkpointCapMs(SHORT_SOAK));
      }
      for (const fault of FAULTS) expect(report.faults[fault], fault).to.be.greaterThan(0);
      const { succeeded, unknown, value } = report.counters;
      expect(value).to.be.within(succeeded, succeeded + unknown);
      expect(report.reconciles).to.be.greaterThan(0);
      // Two minutes are too short for a heap trend (it needs minutes of troughs); the readings must come in. Counted
      // over every replica: a fast run whose faults replace each replica within its 30 s warm-up keeps no sample for
      // the trend, and that is not a failure of the soak.
      expect(report.heapReadings, 'heap readings').to.be.greaterThan(0);
    });
  });
}
