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
    for (const row of [
      /^pods\s+po\s+v1\s+true\s+Pod$/m,
      /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
      /^leases\s.*coordination\.k8s\.io\/v1\s+true\s+Lease$/m,
    ]) {
      expect(out).to.match(row);
    }
  });

  it('lists the default namespaces through kubectl get namespaces', async () => {
    const names = (await kubectl('get', 'namespaces', '-o', 'name')).trim().split('\n');
    expect(names).to.include.members([
      'namespace/default',
      'namespace/kube-system',
      'namespace/kube-public',
      'namespace/kube-node-lease',
    ]);
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

      const pods = JSON.parse(await kubectl('get', 'pods', '-o', 'json')) as {
        kind: string;
        items: Array<{ metadata: { name: string } }>;
      };
      expect(pods.kind).to.equal('List');
      expect(pods.items.map((pod) => pod.metadata.name)).to.deep.equal(['web']);

      expect(await kubectl('label', 'pod', 'web', 'tier=frontend')).to.contain('pod/web labeled');
      expect(
        await kubectl('patch', 'pod', 'web', '--type=merge', '-p', '{"metadata":{"annotations":{"owner":"team-a"}}}'),
      ).to.contain('pod/web patched');
      const patched = JSON.parse(await kubectl('get', 'pod', 'web', '-o', 'json')) as {
        metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      };
      expect(patched.metadata.labels).to.deep.equal({ app: 'web', tier: 'frontend' });
      expect(patched.metadata.annotations).to.deep.equal({ owner: 'team-a' });

      expect(await kubectl('delete', 'pod', 'web')).to.contain('pod "web" deleted');
      await waitFor(
        () => watched.includes('"DELETED"'),
        () => `the DELETED event on kubectl's watch; it printed:\n${watched}`,
        10000,
      );
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

describe('rxkube-test-cluster with --owner-gc, --namespace-lifecycle and --log-requests', function () {
  this.timeout(60000);
  let cli: RunningCli;
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${cli.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'user-agent': 'cli-spec/1' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: await res.json() };
  };

  before(async () => {
    cli = await startCli('src/testing/cli/test-cluster.ts', [
      '--port',
      '0',
      '--owner-gc',
      '--namespace-lifecycle',
      '--log-requests',
    ]);
  });
  after(() => cli?.terminate());

  it('deletes the dependents of a deleted owner, and the content of a deleted namespace', async () => {
    expect((await api('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status).to.equal(201);
    const owner = (await api('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'owner' } })).json;
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
    expect(
      (
        await api('POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: 'dependent', ownerReferences: [{ ...ownerReferences[0], uid: 'gone' }] },
        })
      ).status,
    ).to.equal(201);
    expect(
      (await api('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'dependent', ownerReferences } }))
        .status,
    ).to.equal(201);
    await api('DELETE', '/api/v1/namespaces/doomed/configmaps/owner');
    await waitForStatus(
      '/api/v1/namespaces/doomed/configmaps/dependent',
      404,
      'the garbage collector to delete the dependent',
    );
    await waitForStatus(
      '/api/v1/namespaces/default/configmaps/dependent',
      404,
      'the garbage collector to delete the orphan of a missing owner',
    );
    await api('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'content' } });
    await api('DELETE', '/api/v1/namespaces/doomed');
    await waitForStatus(
      '/api/v1/namespaces/doomed',
      404,
      'the namespace controller to delete the namespace and its content',
    );
  });

  it('prints each request to stderr as an access-log line, and nothing but the ready line to stdout', async () => {
    await api('GET', '/api/v1/namespaces/default/configmaps?limit=1');
    await waitFor(
      () => cli.stderr().includes(' 200 GET /api/v1/namespaces/default/configmaps?limit=1 "cli-spec/1"'),
      () => `the request line; stderr:\n${cli.stderr()}`,
    );
    expect(cli.stderr()).to.match(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z 201 POST \/api\/v1\/namespaces "cli-spec\/1"$/m,
    );
    expect(cli.stdoutLines).to.have.length(1);
  });

  async function waitForStatus(path: string, status: number, what: string): Promise<void> {
    let last = 0;
    for (let attempt = 0; attempt < 200 && last !== status; attempt++) {
      last = (await fetch(`${cli.url}${path}`)).status;
      if (last !== status) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(last, what).to.equal(status);
  }
});

describe('rxkube-test-cluster arguments', () => {
  it('prints every flag with one line of help on --help, starts nothing and exits 0', async () => {
    for (const [entry, flags] of [
      [
        'src/testing/cli/test-cluster.ts',
        [
          '--port',
          '--kubeconfig',
          '--tls',
          '--token',
          '--owner-gc',
          '--namespace-lifecycle',
          '--log-requests',
          '--help',
        ],
      ],
      ['src/testing/cli/control-plane.ts', ['--port', '--kubeconfig', '--tls', '--token', '--help']],
    ] as const) {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', entry, '--help']);
      expect(stderr, entry).to.equal('');
      expect(stdout, entry).to.match(/^usage: rxkube-(test-cluster|control-plane) /);
      const listed = stdout
        .split('\n')
        .filter((line) => /^ {2}--/.test(line))
        .map((line) => line.trim().split(/[ ,]/)[0]);
      expect(listed, entry).to.deep.equal(flags);
      expect(stdout, entry).to.not.match(/^ready /m);
    }
  });

  it('rejects an unknown flag with a usage message and exit code 2', async () => {
    const child = await run(process.execPath, [
      '--import',
      'tsx',
      'src/testing/cli/test-cluster.ts',
      '--prot',
      '0',
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(child.code).to.equal(2);
    expect(child.stderr).to.match(/Unknown option '--prot'/);
    expect(child.stderr).to.contain('usage: rxkube-test-cluster');
  });
});
