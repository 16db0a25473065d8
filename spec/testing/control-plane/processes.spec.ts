import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { processExists, settlesWithin, spawnGroup } from '../../../src/testing/control-plane/processes.js';
import { waitUntilReady } from '../../../src/testing/control-plane/readiness.js';

/** Polls `condition` every 50 ms for up to `ms`; returns whether it became true (no timing assertion). */
async function eventually(condition: () => boolean, ms = 8000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe('testing/control-plane processes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-processes-spec-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a command in its own process group and appends its output to the log file', async () => {
    const child = spawnGroup('echo', '/bin/sh', ['-c', 'echo hello from the child'], join(dir, 'echo.log'));
    expect(await child.exited).to.equal('code 0');
    expect(child.alive()).to.equal(false);
    expect(child.logTail()).to.contain('hello from the child');
  });

  it('stops the whole group, grandchildren included, with SIGTERM', async () => {
    const log = join(dir, 'tree.log');
    const child = spawnGroup('tree', '/bin/sh', ['-c', 'sleep 30 & echo $!; wait'], log);
    expect(await eventually(() => /^\d+$/m.test(readFileSync(log, 'utf8')))).to.equal(true);
    const grandchild = Number(readFileSync(log, 'utf8').trim());
    expect(processExists(grandchild)).to.equal(true);

    await child.stop(5000);

    expect(await child.exited).to.equal('signal SIGTERM');
    expect(await eventually(() => !processExists(grandchild))).to.equal(true);
  });

  it('falls back to SIGKILL when the group ignores SIGTERM, and a second stop is a no-op', async () => {
    const child = spawnGroup(
      'stubborn',
      '/bin/sh',
      ['-c', 'trap "" TERM; echo trapped; sleep 30'],
      join(dir, 'stubborn.log'),
    );
    expect(await eventually(() => child.logTail().includes('trapped'))).to.equal(true);
    await child.stop(100);
    await child.stop(100);
    expect(await child.exited).to.equal('signal SIGKILL');
  });

  it('reports a binary that cannot be spawned as exited instead of throwing', async () => {
    const child = spawnGroup('missing', join(dir, 'no-such-binary'), [], join(dir, 'missing.log'));
    expect(await child.exited).to.match(/spawn error: .*ENOENT/);
    expect(child.alive()).to.equal(false);
    await child.stop(100);
  });

  it('kills the group and removes the work dir when the parent is killed with SIGKILL', async () => {
    const fixture = join(import.meta.dirname, 'fixtures', 'orphan-parent.ts');
    const parent = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      parent.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      parent.once('exit', (code) => reject(new Error(`fixture exited early with ${code}`)));
    });
    const [pid, workDir] = line.split(' ') as [string, string];
    expect(processExists(Number(pid))).to.equal(true);

    parent.kill('SIGKILL');

    expect(await eventually(() => !processExists(Number(pid))), 'group still running').to.equal(true);
    expect(await eventually(() => !existsSync(workDir)), 'work dir not removed').to.equal(true);
  });

  describe('waitUntilReady', () => {
    it('resolves as soon as the probe says ready', async () => {
      const child = spawnGroup('sleeper', '/bin/sh', ['-c', 'sleep 30'], join(dir, 'sleeper.log'));
      let calls = 0;
      await waitUntilReady('sleeper', child, async () => ++calls === 3, 10_000);
      expect(calls).to.equal(3);
      await child.stop(1000);
    });

    it('fails fast with the log tail when the process exits before it is ready', async () => {
      const child = spawnGroup('crasher', '/bin/sh', ['-c', 'echo fatal: bad flag; exit 3'], join(dir, 'crasher.log'));
      const error = await waitUntilReady('crasher', child, async () => false, 60_000).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).to.match(/crasher exited before becoming ready \(code 3\)/);
      expect(error?.message).to.contain('fatal: bad flag');
    });

    it('gives up after the timeout naming the last probe failure', async () => {
      const child = spawnGroup('sleeper', '/bin/sh', ['-c', 'sleep 30'], join(dir, 'sleeper.log'));
      const error = await waitUntilReady(
        'sleeper',
        child,
        async () => {
          throw new Error('connection refused');
        },
        100,
      ).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).to.match(/sleeper not ready after 100 ms \(last probe: connection refused\)/);
      await child.stop(1000);
    });
  });

  it('settlesWithin says whether a promise settled in time', async () => {
    expect(await settlesWithin(Promise.resolve(), 1000)).to.equal(true);
    expect(await settlesWithin(new Promise(() => undefined), 10)).to.equal(false);
  });
});
