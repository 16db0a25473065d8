import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../../support/wait.js';
import { startCli, type RunningCli } from './cli-process.js';

const run = promisify(execFile);
const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27
`;

describe('rxkube-test-cluster', function () {
  this.timeout(60000);
  let dir: string;
  let cli: RunningCli;
  let kubeconfig: string;

  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('kubectl', args, { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 20000 });
    return stdout;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxkube-cli-'));
    kubeconfig = join(dir, 'kubeconfig.yaml');
    cli = await startCli('src/testing/cli/test-cluster.ts', ['--port', '0', '--kubeconfig', kubeconfig, '--tls']);
  });

  after(async () => {
    await cli?.terminate();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints exactly one ready line with a 127.0.0.1 URL and writes the kubeconfig before it', async () => {
    expect(cli.stdoutLines).to.have.length(1);
    expect(cli.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const written = await readFile(kubeconfig, 'utf8');
    expect(written).to.contain(cli.url);
  });

  it('serves kubectl api-resources with the built-in kinds', async () => {
    const out = await kubectl('api-resources');
    for (const row of [/^pods\s+po\s+v1\s+true\s+Pod$/m, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m, /^leases\s.*coordination\.k8s\.io\/v1\s+true\s+Lease$/m]) {
      expect(out).to.match(row);
    }
  });

  it('lists the default namespaces through kubectl get namespaces', async () => {
    const names = (await kubectl('get', 'namespaces', '-o', 'name')).trim().split('\n');
    expect(names).to.include.members(['namespace/default', 'namespace/kube-system', 'namespace/kube-public', 'namespace/kube-node-lease']);
  });

  it('shows creates, labels, merge patches and deletes live to kubectl get pods --watch', async () => {
    const watcher = spawn('kubectl', ['get', 'pods', '--watch', '--output-watch-events', '-o', 'json'], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let watched = '';
    watcher.stdout.setEncoding('utf8').on('data', (chunk: string) => (watched += chunk));
    try {
      const manifest = join(dir, 'pod.yaml');
      await writeFile(manifest, podManifest);
      expect(await kubectl('create', '-f', manifest)).to.contain('pod/web created');

      const pods = JSON.parse(await kubectl('get', 'pods', '-o', 'json')) as { kind: string; items: Array<{ metadata: { name: string } }> };
      expect(pods.kind).to.equal('List');
      expect(pods.items.map((pod) => pod.metadata.name)).to.deep.equal(['web']);

      expect(await kubectl('label', 'pod', 'web', 'tier=frontend')).to.contain('pod/web labeled');
      expect(await kubectl('patch', 'pod', 'web', '--type=merge', '-p', '{"metadata":{"annotations":{"owner":"team-a"}}}')).to.contain('pod/web patched');
      const patched = JSON.parse(await kubectl('get', 'pod', 'web', '-o', 'json')) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
      expect(patched.metadata.labels).to.deep.equal({ app: 'web', tier: 'frontend' });
      expect(patched.metadata.annotations).to.deep.equal({ owner: 'team-a' });

      expect(await kubectl('delete', 'pod', 'web')).to.contain('pod "web" deleted');
      await waitFor(() => watched.includes('"DELETED"'), () => `the DELETED event on kubectl's watch; it printed:\n${watched}`, 10000);
      const types = [...watched.matchAll(/"type":\s*"(ADDED|MODIFIED|DELETED)"/g)].map((match) => match[1]);
      expect(types).to.deep.equal(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    } finally {
      watcher.kill('SIGKILL');
    }
  });

  it('stops cleanly with exit code 0 on SIGTERM', async () => {
    expect(await cli.terminate()).to.equal(0);
  });
});

describe('rxkube-test-cluster arguments', () => {
  it('rejects an unknown flag with a usage message and exit code 2', async () => {
    const child = await run(process.execPath, ['--import', 'tsx', 'src/testing/cli/test-cluster.ts', '--prot', '0']).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(child.code).to.equal(2);
    expect(child.stderr).to.match(/Unknown option '--prot'/);
    expect(child.stderr).to.contain('usage: rxkube-test-cluster');
  });
});
