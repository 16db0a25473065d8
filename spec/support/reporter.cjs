'use strict';
// Mocha's spec reporter, plus a machine-readable tally for .ci/run.
// When RXKUBE_TEST_RESULTS names a directory, the run's pass/fail counts are written there as one JSON file,
// so the CI summary line is derived from mocha's own stats rather than from scraping its output.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class RxkubeReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const dir = process.env.RXKUBE_TEST_RESULTS;
      if (!dir) return;
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      const label = process.env.RXKUBE_TEST_SUITE ?? 'unit';
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, `${label}-${process.pid}.json`),
        JSON.stringify({ suite: label, passes: stats.passes, failures: stats.failures, pending: stats.pending }),
      );
    });
  }
}

module.exports = RxkubeReporter;
