import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Outcome {
  readonly code: number | null;
  readonly output: string;
  readonly tally: { passes: number; failures: number; pending: number; failed: string[] };
  readonly summary: string;
}

/**
 * Runs one fixture under the reporter. `exitGraceMs` is how long after the run the reporter waits for the process to
 * exit by itself: short where a spec expects the guard to fire, long where it expects a clean exit, so that a busy
 * machine slow to exit is not taken for a leaked handle (under CI's load a clean exit took more than 300 ms, with
 * the tally's file write and stdio still open).
 */
async function runMocha(fixture: string, exitGraceMs = 300, env: Record<string, string> = {}): Promise<Outcome> {
  const results = await mkdtemp(join(tmpdir(), 'rxkube-reporter-'));
  try {
    // mocha's own CLI in this one process (bin/mocha.js would run it in a child for the node option), so that the
    // time limit's SIGKILL ends the run itself and leaves nothing behind.
    const args = ['--no-config', '--extension', 'ts'];
    const reporter = ['--reporter', './spec/support/reporter.cjs', fixture];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', join(root, 'node_modules/mocha/lib/cli/cli.js'), ...args, ...reporter],
        {
          cwd: root,
          env: {
            ...process.env,
            RXKUBE_EXIT_GRACE_MS: String(exitGraceMs),
            RXKUBE_TEST_RESULTS: results,
            RXKUBE_TEST_SUITE: 'fixture',
            ...env,
          },
          timeout: 15_000,
          // A teardown that spins ignores SIGTERM: only SIGKILL ends it, and no spinning process is left behind.
          killSignal: 'SIGKILL',
        },
        (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
      );
    });
    const [file] = await readdir(results);
    const tally = JSON.parse(await readFile(join(results, file!), 'utf8'));
    const summary = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [join(root, 'scripts/sum-test-results.mjs'), results, 'fixture', 'lint'],
        { cwd: root, timeout: 15_000 },
        (_error, stdout) => resolve(stdout),
      );
    });
    return { code, output, tally, summary };
  } finally {
    await rm(results, { recursive: true, force: true });
  }
}

describe('the test reporter', () => {
  it('ends a run that a leaked handle keeps alive, names the handle, and counts one more failure', async () => {
    const outcome = await runMocha('spec/support/fixtures/leaks-a-timer.fixture.ts');
    expect(outcome.code).to.equal(1);
    expect(outcome.output).to.match(/has not exited: a spec leaked a handle \([^)]*\bTimeout\b[^)]*\)/);
    expect(outcome.tally).to.deep.include({ suite: 'fixture', passes: 1, failures: 1, pending: 0 });
    expect(outcome.tally.failed).to.have.length(1);
    expect(outcome.tally.failed[0]).to.match(/^the process did not exit after the run \(.*Timeout/);
  });

  it('kills a run whose main thread spins after the end, from a worker thread, and counts one more failure', async () => {
    const outcome = await runMocha('spec/support/fixtures/spins-after-the-run.fixture.ts');
    expect(outcome.code).to.not.equal(0);
    expect(outcome.output).to.contain('the main thread is stuck (a busy loop?): killed');
    expect(outcome.tally).to.deep.include({ suite: 'fixture', passes: 1, failures: 1, pending: 0 });
    expect(outcome.tally.failed).to.deep.equal(['the main thread was stuck after the run and was killed']);
  });

  it('kills a run blocked in one test past its timeout, names that test, and keeps the tally of the tests before it', async () => {
    // Mocha's timeout cannot fire while the main thread spins: the worker ends it once the test's timeout (mocha's
    // default, 2 s) and a 1 s slack have passed without a heartbeat.
    const outcome = await runMocha('spec/support/fixtures/blocks-in-a-test.fixture.ts', 300, {
      RXKUBE_BLOCKED_SLACK_MS: '1000',
    });
    expect(outcome.code, outcome.output).to.not.equal(0);
    expect(outcome.output).to.contain(
      'a suite with a test that never returns blocks the main thread: blocked the main',
    );
    expect(outcome.tally).to.deep.include({ suite: 'fixture', passes: 1, failures: 2, pending: 0 });
    expect(outcome.tally.failed).to.have.length(2);
    expect(outcome.tally.failed[0]).to.equal(
      'a suite with a test that never returns fails first: this one failed on its own',
    );
    expect(outcome.tally.failed[1], outcome.tally.failed[1]).to.match(
      /^a suite with a test that never returns blocks the main thread: blocked the main thread for \d+ s \(its timeout 2000 ms\)/,
    );
  });

  it('ends a run that exits by itself at once, though a socket Node cannot close would spin its teardown forever', async () => {
    // Without the reporter's exit, Node's teardown spins until execFile's 15 s limit kills it (no exit code).
    const outcome = await runMocha('spec/support/fixtures/leaves-an-unclosable-socket.fixture.ts', 10_000);
    expect(outcome.code, `exit code ${outcome.code}, output:\n${outcome.output}`).to.equal(0);
    expect(outcome.output).to.not.contain('killed');
    expect(outcome.tally).to.deep.include({ suite: 'fixture', passes: 1, failures: 0, pending: 0 });
  });

  it('names each failing test by its first line that says something, and each missing suite, above the summary, which stays the last line alone', async () => {
    // A clean exit is expected: a short grace would count a busy machine's slow exit as a leak (CI saw it).
    const outcome = await runMocha('spec/support/fixtures/fails-one.fixture.ts', 10_000);
    expect(outcome.tally.failed).to.deep.equal([
      'a fixture suite fails with a message of two lines: the first line says why',
      'a fixture suite fails with a message that opens with a blank line: the second line says why',
    ]);
    expect(outcome.summary.trimEnd().split('\n')).to.deep.equal([
      'failed:',
      '  - fixture: a fixture suite fails with a message of two lines: the first line says why',
      '  - fixture: a fixture suite fails with a message that opens with a blank line: the second line says why',
      '  - lint: wrote no tally (it crashed, or did not start)',
      '1 passed, 3 failed',
    ]);
  });
});
