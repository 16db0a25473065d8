'use strict';
// Mocha's spec reporter, plus a machine-readable tally for .ci/run.
// When RXKUBE_TEST_RESULTS names a directory, the run's pass/fail counts are written there as one JSON file,
// so the CI summary line is derived from mocha's own stats rather than from scraping its output.
// Mocha runs without --exit, so a handle a spec leaks keeps the process alive after the last test. Rather than
// hang CI until its time limit, a process still alive RXKUBE_EXIT_GRACE_MS (default 60 s) after the run ends
// names what keeps it alive, counts one more failure, and exits.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class RxkubeReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      writeTally(stats.passes, stats.failures, stats.pending);
      const grace = Number(process.env.RXKUBE_EXIT_GRACE_MS ?? 60_000);
      setTimeout(() => {
        const alive = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
        console.error(
          `\n  The run ended ${grace} ms ago and the process has not exited: a spec leaked a handle` +
            ` (${alive.join(', ') || 'unknown'}). Counted as one failure.`,
        );
        writeTally(stats.passes, stats.failures + 1, stats.pending);
        // Mocha's own exit listener sets the exit code from the failure count; this one runs after it.
        process.on('exit', () => {
          process.exitCode = 1;
        });
        process.exit(1);
      }, grace).unref();
    });
  }
}

function writeTally(passes, failures, pending) {
  const dir = process.env.RXKUBE_TEST_RESULTS;
  if (!dir) return;
  const label = process.env.RXKUBE_TEST_SUITE ?? 'unit';
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, `${label}-${process.pid}.json`),
    JSON.stringify({ suite: label, passes, failures, pending }),
  );
}

module.exports = RxkubeReporter;
