'use strict';
// Mocha's spec reporter, plus a machine-readable tally for .ci/run.
// When RXKUBE_TEST_RESULTS names a directory, the run's pass/fail counts are written there as one JSON file,
// so the CI summary line is derived from mocha's own stats rather than from scraping its output. The tally also
// names each failure (full title and the first line of its error), so that the end of a CI log says what failed.
// Mocha runs without --exit, so a handle a spec leaks keeps the process alive after the last test. Rather than
// hang CI until its time limit, a process still alive RXKUBE_EXIT_GRACE_MS (default 60 s) after the run ends
// names what keeps it alive, counts one more failure, and exits. A main thread stuck in a busy loop never runs that
// timer, so a worker thread, which has its own event loop, kills the process up to 15 s later as a last resort.
// The same worker watches the run itself: a test that blocks the main thread (a synchronous loop that never ends,
// a synchronous call that never returns) is beyond mocha's own timeout, which needs the event loop. Once the main
// thread's heartbeat has stood still for the test's timeout plus RXKUBE_BLOCKED_SLACK_MS (default 5 min: a test may
// block in a synchronous child process, and it sees only the timeout the test had as it started), the worker
// names the test, counts it as failed, writes the tally and kills the process: CI then says which test hung
// instead of "killed after 35 minutes".
// A run that ends by itself exits through process.exit() from its last 'exit' listener: Node's own teardown after
// the 'exit' event can spin forever (a socket handle it can never close), and there no timer and no worker runs.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');
const { Worker } = require('node:worker_threads');

/** Slots of the Int32Array the main thread shares with the worker. */
const SLOT = {
  /** Set to 1 when the run ends. */
  ended: 0,
  /** Never set: the worker times its post-run grace out on it. */
  never: 1,
  /** Bumped every second by a timer of the main thread: it stands still while the main thread is blocked. */
  heartbeat: 2,
  /** The timeout of the test or hook running now as it started, ms (0: none); one it sets in its body is not seen. */
  timeout: 3,
  passes: 4,
  failures: 5,
  pending: 6,
  /** Byte length of the running test's title, kept UTF-8 encoded from byte TITLE_OFFSET on. */
  titleLength: 7,
};
const TITLE_OFFSET = 32;
const TITLE_BYTES = 1024;

/**
 * The worker, started with the run. Until the run ends it wakes every few seconds to check the main thread's
 * heartbeat, and ends a run blocked in one test (see the file's head). Once the run ends it waits `grace` ms more,
 * then writes the tally of the stuck run, says why, and SIGKILLs the whole process: that ends a main thread that
 * spins in JavaScript after the run. It cannot end a spin in Node's teardown after the 'exit' event (the hang CI saw
 * with no worker thread left): that teardown stops the workers first, so `done` below keeps the teardown from
 * running at all.
 */
const LAST_RESORT = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const SLOT = ${JSON.stringify(SLOT)};
const signal = new Int32Array(workerData.signal);
const title = new Uint8Array(workerData.signal, ${TITLE_OFFSET}, ${TITLE_BYTES});
const check = Math.min(5000, Math.max(50, workerData.slack / 4));
let beat = Atomics.load(signal, SLOT.heartbeat);
let beatAt = Date.now();
while (Atomics.load(signal, SLOT.ended) === 0) {
  Atomics.wait(signal, SLOT.ended, 0, check);
  if (Atomics.load(signal, SLOT.ended) !== 0) break;
  const now = Date.now();
  const seen = Atomics.load(signal, SLOT.heartbeat);
  if (seen !== beat) {
    beat = seen;
    beatAt = now;
    continue;
  }
  const timeout = Atomics.load(signal, SLOT.timeout) || 600000;
  if (now - beatAt < timeout + workerData.slack) continue;
  const name = Buffer.from(title.slice(0, Atomics.load(signal, SLOT.titleLength))).toString('utf8') || 'no test';
  const why = name + ': blocked the main thread for ' + Math.round((now - beatAt) / 1000) + ' s (its timeout ' +
    timeout + ' ms): a synchronous loop or call that never returned; the run was killed there';
  if (workerData.tally) {
    let failed = [];
    try { failed = JSON.parse(fs.readFileSync(workerData.tally.failed, 'utf8')); } catch {}
    fs.writeFileSync(workerData.tally.file, JSON.stringify({
      suite: workerData.tally.suite,
      passes: Atomics.load(signal, SLOT.passes),
      failures: Atomics.load(signal, SLOT.failures) + 1,
      pending: Atomics.load(signal, SLOT.pending),
      failed: [...failed, why],
    }));
  }
  fs.writeSync(2, '\\n  ' + why + '. Counted as one failure.\\n');
  process.kill(workerData.pid, 'SIGKILL');
}
Atomics.wait(signal, SLOT.never, 0, workerData.grace);
if (workerData.tally) fs.writeFileSync(workerData.tally.file, workerData.tally.stuck ? fs.readFileSync(workerData.tally.stuck, 'utf8') : '');
fs.writeSync(2, '\\n  The run ended ' + workerData.grace + ' ms ago and the main thread is stuck (a busy loop?): killed.' +
  ' Counted as one failure.\\n');
process.kill(workerData.pid, 'SIGKILL');
`;

class RxkubeReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const grace = Number(process.env.RXKUBE_EXIT_GRACE_MS ?? 60_000);
    const slack = Number(process.env.RXKUBE_BLOCKED_SLACK_MS ?? 300_000);
    const signal = new Int32Array(new SharedArrayBuffer(TITLE_OFFSET + TITLE_BYTES));
    const title = new Uint8Array(signal.buffer, TITLE_OFFSET, TITLE_BYTES);
    const where = tallyFile({ passes: 0, failures: 0, pending: 0 });
    new Worker(LAST_RESORT, {
      eval: true,
      workerData: {
        signal: signal.buffer,
        grace: grace + Math.min(grace, 15_000),
        slack,
        pid: process.pid,
        tally:
          where === undefined
            ? undefined
            : {
                file: where.file,
                suite: where.suite,
                stuck: `${where.file}.stuck`,
                failed: `${where.file}.failed`,
              },
      },
    }).unref();
    setInterval(() => Atomics.add(signal, SLOT.heartbeat, 1), 1000).unref();
    /** Tells the worker what runs now: its full title and its timeout. */
    const running = (runnable) => {
      const bytes = Buffer.from(runnable.fullTitle());
      const length = Math.min(bytes.length, TITLE_BYTES);
      title.set(bytes.subarray(0, length));
      Atomics.store(signal, SLOT.titleLength, length);
      Atomics.store(signal, SLOT.timeout, Math.min(runnable.timeout() || 0, 2 ** 31 - 1));
    };
    runner.on('test', running);
    runner.on('hook', running);
    runner.on('pass', () => Atomics.add(signal, SLOT.passes, 1));
    const failed = [];
    /** Counts a failure or a pending test, and names it where the worker finds it if a later test blocks for good. */
    const fail = (slot, what) => {
      Atomics.add(signal, slot, 1);
      failed.push(what);
      if (where !== undefined) writeFile(`${where.file}.failed`, JSON.stringify(failed));
    };
    runner.on('fail', (test, error) => {
      // The first line that says something: a message that opens with a blank line would otherwise name nothing.
      const lines = String(error?.message ?? error ?? '').split('\n');
      const message = (lines.find((line) => line.trim() !== '') ?? 'no message').trim().slice(0, 300);
      fail(SLOT.failures, `${test.fullTitle()}: ${message}`);
    });
    runner.on('pending', (test) => fail(SLOT.pending, `${test.fullTitle()}: pending (pending tests are forbidden)`));
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
      if (where !== undefined) fs.rmSync(`${where.file}.failed`, { force: true });
      Atomics.store(signal, SLOT.ended, 1);
      Atomics.notify(signal, SLOT.ended);
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
    suite: label,
    text: JSON.stringify({ suite: label, passes, failures, pending, failed }),
  };
}

function writeTally(passes, failures, pending, failed) {
  const tally = tallyFile({ passes, failures, pending, failed });
  if (tally === undefined) return;
  writeFile(tally.file, tally.text);
}

function writeFile(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

module.exports = RxkubeReporter;
