/**
 * What people who install the package get: the files, working source maps, a LICENSE, and bins that tell the
 * truth. The tarball is built with `npm pack` and installed into a scratch project, as a user would: first alone (a
 * production install gets no test-kit peer), then with the test kit's optional peers.
 */
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = process.cwd();
/** npm from PATH (`npm test` puts it there). */
const npm = 'npm';

describe('the published package', function () {
  this.timeout(240_000);
  let scratch: string;
  let installed: string;
  const { peerDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'rxkube-package-'));
    const packed = JSON.parse(
      execFileSync(npm, ['pack', '--json', '--pack-destination', scratch], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 60_000,
      }),
    ) as Array<{ filename: string }>;
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', join(scratch, packed[0]!.filename)], {
      cwd: scratch,
      stdio: 'ignore',
      timeout: 150_000,
    });
    installed = join(scratch, 'node_modules', 'rxkube');
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('carries an Apache-2.0 LICENSE', () => {
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).to.contain(
      'Apache License\n                           Version 2.0',
    );
  });

  it('has the source of every source map entry, inlined or beside it, so stack traces and debuggers show real code', () => {
    const maps = execFileSync('find', [join(installed, 'dist'), '-name', '*.map'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(maps.length).to.be.greaterThan(50);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(map, 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      sources.forEach((source, index) => {
        if (typeof sourcesContent?.[index] !== 'string' && !existsSync(resolve(dirname(map), source)))
          missing.push(`${map}: ${source}`);
      });
    }
    expect(missing).to.deep.equal([]);
  });

  it('ships neither the TypeScript sources nor the Go modules of the control plane', () => {
    expect(existsSync(join(installed, 'src')), 'src/').to.equal(false);
    expect(existsSync(join(installed, 'test')), 'test/control-plane').to.equal(false);
  });

  it("installs none of the test kit's optional peers with the package", () => {
    for (const name of Object.keys(peerDependencies))
      expect(existsSync(join(scratch, 'node_modules', name)), name).to.equal(false);
  });

  it("imports every entry point from the installed package, without the test kit's peers", () => {
    const script =
      "const a = await import('rxkube'); const e = await import('rxkube/extend'); const t = await import('rxkube/testing'); console.log(typeof a.reconcile, typeof e.listWatch, typeof t.startTestCluster)";
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch, encoding: 'utf8' });
    expect(run.stderr).to.equal('');
    expect(run.stdout.trim()).to.equal('function function function');
  });

  it('names the missing peer and the command that installs it when a test-kit feature needs one', () => {
    const script =
      "const { scenarioArbitrary } = await import('rxkube/testing'); try { scenarioArbitrary(1000, [], {}); } catch (error) { console.log(error.message); }";
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch, encoding: 'utf8' });
    expect(run.stderr).to.equal('');
    expect(run.stdout)
      .to.contain('rxkube/testing needs the package "fast-check"')
      .and.to.contain('npm install --save-dev fast-check');
  });

  it('serves protobuf from the installed test cluster once protobufjs is installed, whose vendored .proto files ship beside the compiled code', () => {
    const peers = Object.entries(peerDependencies).map(([name, range]) => `${name}@${range}`);
    execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', ...peers], {
      cwd: scratch,
      stdio: 'ignore',
      timeout: 150_000,
    });
    const script = [
      "const { startTestCluster } = await import('rxkube/testing');",
      "const cluster = await startTestCluster({ tls: false, token: 't' });",
      'try {',
      "  const answer = await fetch(cluster.url + '/api/v1/namespaces/default', { headers: { accept: 'application/vnd.kubernetes.protobuf', authorization: 'Bearer t' } });",
      '  const bytes = Buffer.from(await answer.arrayBuffer());',
      "  console.log(answer.status, answer.headers.get('content-type'), bytes.subarray(0, 3).toString());",
      '} finally { await cluster.stop(); }',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).to.equal('');
    expect(run.stdout.trim()).to.equal('200 application/vnd.kubernetes.protobuf k8s');
  });

  it('tells users of rxkube-control-plane a command the package has', () => {
    const env = {
      ...process.env,
      RXKUBE_CACHE_DIR: join(scratch, 'empty-cache'),
      RXKUBE_ASSETS: '',
      KUBEBUILDER_ASSETS: '',
    };
    const start = spawnSync(join(scratch, 'node_modules', '.bin', 'rxkube-control-plane'), [], {
      cwd: scratch,
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    expect(start.status).to.equal(1);
    expect(start.stderr).to.contain('npx rxkube-control-plane build');
    // `build` runs from the installed package: with no Go on PATH it says what to do instead of failing obscurely.
    const build = spawnSync(join(scratch, 'node_modules', '.bin', 'rxkube-control-plane'), ['build'], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...env, PATH: dirname(process.execPath) },
      timeout: 60_000,
    });
    expect(build.status).to.equal(1);
    expect(build.stdout).to.contain('Go is not on PATH');
  });

  it('builds nothing when RXKUBE_ASSETS names usable binaries', () => {
    const assets = join(scratch, 'assets');
    execFileSync('mkdir', ['-p', assets]);
    for (const name of ['kube-apiserver', 'etcd']) writeFileSync(join(assets, name), '#!/bin/sh\n', { mode: 0o755 });
    const build = spawnSync(join(scratch, 'node_modules', '.bin', 'rxkube-control-plane'), ['build'], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, RXKUBE_ASSETS: assets },
      timeout: 60_000,
    });
    expect(build.status).to.equal(0);
    expect(build.stdout).to.contain(`using prebuilt binaries from RXKUBE_ASSETS=${assets}`);
  });
});
