'use strict';
// Mocha's spec reporter, plus a machine-readable tally for .ci/run.
// When RXKUBE_TEST_RESULTS names a directory, the run's pass/fail counts are written there as one JSON file,
// so the CI summary line is derived from mocha's own stats rather than from scraping its output. The tally also
// names each failure (full title and the first line of its error), so that the end of a CI log says what failed.
// Mocha runs without --exit, so a handle a spec leaks keeps the process alive after the last test. Rather than
// hang CI until its time limit, a process still alive RXKUBE_EXIT_GRACE_MS (default 60 s) after the run ends
// names what keeps it alive, counts one more failure, and exits. A main thread stuck in a busy loop never runs that
// timer, so a worker thread, which has its own event loop, kills the process up to 15 s later as a last resort.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');
const { Worker } = require('node:worker_threads');

/** The last resort, run in a worker: after `grace` ms, count the failure, say why, and SIGKILL the whole process. */
const LAST_RESORT = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
setTimeout(() => {
  if (workerData.tally) fs.writeFileSync(workerData.tally.file, workerData.tally.text);
  fs.writeSync(2, '\\n  The run ended ' + workerData.grace + ' ms ago and the main thread is stuck (a busy loop?): killed.' +
    ' Counted as one failure.\\n');
  process.kill(workerData.pid, 'SIGKILL');
}, workerData.grace);
`;

class RxkubeReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failed = [];
    runner.on('fail', (test, error) => {
      const message = String(error?.message ?? error ?? 'no message')
        .split('\n')[0]
        .slice(0, 300);
      failed.push(`${test.fullTitle()}: ${message}`);
    });
    runner.on('pending', (test) => failed.push(`${test.fullTitle()}: pending (pending tests are forbidden)`));
    runner.once('end', () => {
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      writeTally(stats.passes, stats.failures, stats.pending, failed);
      const grace = Number(process.env.RXKUBE_EXIT_GRACE_MS ?? 60_000);
      const tally = tallyFile({
        passes: stats.passes,
        failures: stats.failures + 1,
        pending: stats.pending,
        failed: [...failed, 'the main thread was stuck after the run and was killed'],
      });
      new Worker(LAST_RESORT, {
        eval: true,
        workerData: { grace: grace + Math.min(grace, 15_000), pid: process.pid, tally },
      }).unref();
      setTimeout(() => {
        const alive = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
        console.error(
          `\n  The run ended ${grace} ms ago and the process has not exited: a spec leaked a handle` +
            ` (${alive.join(', ') || 'unknown'}). Counted as one failure.`,
        );
        writeTally(stats.passes, stats.failures + 1, stats.pending, [
          ...failed,
          `the process did not exit after the run (${alive.join(', ') || 'unknown'})`,
        ]);
        // Mocha's own exit listener sets the exit code from the failure count; this one runs after it.
        process.on('exit', () => {
          process.exitCode = 1;
        });
        process.exit(1);
      }, grace).unref();
    });
  }
}

/** Where and what the tally is written, or `undefined` when no results directory is named. */
function tallyFile({ passes, failures, pending, failed = [] }) {
  const dir = process.env.RXKUBE_TEST_RESULTS;
  if (!dir) return undefined;
  const label = process.env.RXKUBE_TEST_SUITE ?? 'unit';
  return {
    dir,
    file: path.join(dir, `${label}-${process.pid}.json`),
    text: JSON.stringify({ suite: label, passes, failures, pending, failed }),
  };
}

function writeTally(passes, failures, pending, failed) {
  const tally = tallyFile({ passes, failures, pending, failed });
  if (tally === undefined) return;
  fs.mkdirSync(tally.dir, { recursive: true });
  fs.writeFileSync(tally.file, tally.text);
}

module.exports = RxkubeReporter;
