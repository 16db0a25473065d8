'use strict';
// Mocha's spec reporter, plus a machine-readable tally for .ci/run.
// When RXKUBE_TEST_RESULTS names a directory, the run's pass/fail counts are written there as one JSON file,
// so the CI summary line is derived from mocha's own stats rather than from scraping its output. The tally also
// names each failure (full title and the first line of its error), so that the end of a CI log says what failed.
// Mocha runs without --exit, so a handle a spec leaks keeps the process alive after the last test. Rather than
// hang CI until its time limit, a process still alive RXKUBE_EXIT_GRACE_MS (default 60 s) after the run ends
// names what keeps it alive, counts one more failure, and exits. A main thread stuck in a busy loop never runs that
// timer, so a worker thread, which has its own event loop, kills the process up to 15 s later as a last resort.
// A run that ends by itself exits through process.exit() from its last 'exit' listener: Node's own teardown after
// the 'exit' event can spin forever (a socket handle it can never close), and there no timer and no worker runs.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');
const { Worker } = require('node:worker_threads');

/**
 * The last resort, run in a worker started with the run: it blocks (no event loop needed) until the run's end is
 * signalled in `signal[0]`, waits `grace` ms more, then writes the tally of the stuck run, says why, and SIGKILLs the
 * whole process. It ends a main thread that spins in JavaScript. It cannot end a spin in Node's teardown after the
 * 'exit' event (the hang CI saw with no worker thread left): that teardown stops the workers first, so `done` below
 * keeps the teardown from running at all.
 */
const LAST_RESORT = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const signal = new Int32Array(workerData.signal);
while (Atomics.load(signal, 0) === 0) Atomics.wait(signal, 0, 0);
Atomics.wait(signal, 1, 0, workerData.grace);
if (workerData.tally) fs.writeFileSync(workerData.tally.file, workerData.tally.stuck ? fs.readFileSync(workerData.tally.stuck, 'utf8') : '');
fs.writeSync(2, '\\n  The run ended ' + workerData.grace + ' ms ago and the main thread is stuck (a busy loop?): killed.' +
  ' Counted as one failure.\\n');
process.kill(workerData.pid, 'SIGKILL');
`;

class RxkubeReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const grace = Number(process.env.RXKUBE_EXIT_GRACE_MS ?? 60_000);
    // [the run ended, never set]: the worker blocks on the first, and times its grace out on the second.
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const where = tallyFile({ passes: 0, failures: 0, pending: 0 });
    new Worker(LAST_RESORT, {
      eval: true,
      workerData: {
        signal: signal.buffer,
        grace: grace + Math.min(grace, 15_000),
        pid: process.pid,
        tally: where === undefined ? undefined : { file: where.file, stuck: `${where.file}.stuck` },
      },
    }).unref();
    const failed = [];
    runner.on('fail', (test, error) => {
      // The first line that says something: a message that opens with a blank line would otherwise name nothing.
      const lines = String(error?.message ?? error ?? '').split('\n');
      const message = (lines.find((line) => line.trim() !== '') ?? 'no message').trim().slice(0, 300);
      failed.push(`${test.fullTitle()}: ${message}`);
    });
    runner.on('pending', (test) => failed.push(`${test.fullTitle()}: pending (pending tests are forbidden)`));
    this.exitFailed = false;
    runner.once('end', () => {
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      writeTally(stats.passes, stats.failures, stats.pending, failed);
      // What the last resort writes as the tally if it has to kill: kept beside it (sum-test-results reads *.json).
      const stuck = tallyFile({
        passes: stats.passes,
        failures: stats.failures + 1,
        pending: stats.pending,
        failed: [...failed, 'the main thread was stuck after the run and was killed'],
      });
      if (stuck !== undefined) fs.writeFileSync(`${stuck.file}.stuck`, stuck.text);
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
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
        // Mocha's own exit listener sets the exit code from the failure count; the one `done` adds runs after it.
        this.exitFailed = true;
        process.on('exit', () => {
          process.exitCode = 1;
        });
        process.exit(1);
      }, grace).unref();
    });
  }
}

/**
 * Mocha calls `done` at the end of the run in place of its exit handler `fn`, which adds mocha's 'exit' listener (it
 * sets the exit code from the failure count). The listener added after it ends the process with `process.exit()`
 * the moment it exits by itself, so that Node's environment teardown never runs: that teardown closes every handle
 * left and loops until each has closed, and a socket handle that a failed `resetAndDestroy()` (EINVAL, its shutdown
 * pending) marked closing without closing it keeps that loop spinning at 100 % CPU forever. It started after the
 * 'exit' event, where no timer and no worker thread run (the teardown stops the workers first), so neither guard of
 * the constructor could end it.
 */
RxkubeReporter.prototype.done = function done(failures, fn) {
  fn(failures);
  process.on('exit', () => {
    if (this.exitFailed) process.exitCode = 1;
    process.exit();
  });
};

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
