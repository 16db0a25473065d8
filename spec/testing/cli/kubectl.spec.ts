import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCli, type RunningCli } from './cli-process.js';

const run = promisify(execFile);

const manifest = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  mode: "${value}"
`;

describe('kubectl against rxkube-test-cluster, as people use it', function () {
  this.timeout(60000);
  let dir: string;
  let cli: RunningCli;
  let kubeconfig: string;

  /** Runs kubectl; resolves with its exit code and output instead of throwing on a non-zero exit. */
  const kubectl = async (
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run('kubectl', args, {
        env: { ...process.env, KUBECONFIG: kubeconfig, ...env },
        timeout: 20000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return {
        code: typeof failed.code === 'number' ? failed.code : 1,
        stdout: failed.stdout ?? '',
        stderr: failed.stderr ?? '',
      };
    }
  };
  const json = async (...args: string[]) =>
    JSON.parse((await kubectl([...args, '-o', 'json', '--show-managed-fields'])).stdout);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxkube-kubectl-'));
    kubeconfig = join(dir, 'kubeconfig.yaml');
    cli = await startCli('src/testing/cli/test-cluster.ts', ['--port', '0', '--kubeconfig', kubeconfig, '--tls']);
  });

  after(async () => {
    await cli?.terminate();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a configmap, a deployment and a generic secret imperatively (kubectl sends protobuf)', async () => {
    expect((await kubectl(['create', 'configmap', 'settings', '--from-literal=color=blue'])).stdout).to.contain(
      'configmap/settings created',
    );
    expect((await kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2'])).stdout).to.contain(
      'deployment.apps/web created',
    );
    expect((await kubectl(['create', 'secret', 'generic', 'token', '--from-literal=key=s3cret'])).stdout).to.contain(
      'secret/token created',
    );
    const settings = await json('get', 'configmap', 'settings');
    expect(settings.data).to.deep.equal({ color: 'blue' });
    expect(settings.metadata.managedFields.map((e: { manager: string }) => e.manager)).to.deep.equal([
      'kubectl-create',
    ]);
    const web = await json('get', 'deployment', 'web');
    expect(web.spec.replicas).to.equal(2);
    expect(web.spec.template.spec.containers).to.have.length(1);
    expect(web.spec.template.spec.containers[0]).to.deep.include({ name: 'nginx', image: 'nginx:1.27' });
    const token = await json('get', 'secret', 'token');
    expect(Buffer.from(token.data.key, 'base64').toString()).to.equal('s3cret');
    expect(token.type).to.equal('Opaque');
  });

  it('creates a deployment scaled to zero with --replicas=0, an explicit zero sent in protobuf', async () => {
    expect((await kubectl(['create', 'deployment', 'zero', '--image=nginx', '--replicas=0'])).stdout).to.contain(
      'deployment.apps/zero created',
    );
    expect((await json('get', 'deployment', 'zero')).spec.replicas).to.equal(0);
  });

  it('applies server-side, reports a conflict with another manager, and takes the field with --force-conflicts', async () => {
    const file = join(dir, 'applied.yaml');
    await writeFile(file, manifest('a'));
    expect((await kubectl(['apply', '--server-side', '-f', file])).stdout).to.contain(
      'configmap/applied serverside-applied',
    );
    expect(
      (await kubectl(['patch', 'configmap', 'applied', '--type=merge', '-p', '{"data":{"mode":"b"}}'])).code,
    ).to.equal(0);
    const clash = await kubectl(['apply', '--server-side', '-f', file]);
    expect(clash.code).to.not.equal(0);
    expect(clash.stderr).to.contain('Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.mode');
    expect((await kubectl(['apply', '--server-side', '--force-conflicts', '-f', file])).code).to.equal(0);
    const applied = await json('get', 'configmap', 'applied');
    expect(applied.data).to.deep.equal({ mode: 'a' });
    const owners = applied.metadata.managedFields.map(
      (e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`,
    );
    expect(owners).to.deep.equal(['kubectl/Apply']);
  });

  it('edits through $EDITOR and diffs a changed manifest against the cluster', async () => {
    const editor = join(dir, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i \'s/mode: a/mode: edited/\' "$1"\n');
    await chmod(editor, 0o755);
    const edited = await kubectl(['edit', 'configmap', 'applied'], { EDITOR: editor, KUBE_EDITOR: editor });
    expect(edited.stdout, edited.stderr).to.contain('configmap/applied edited');
    expect((await json('get', 'configmap', 'applied')).data).to.deep.equal({ mode: 'edited' });

    const file = join(dir, 'changed.yaml');
    await writeFile(file, manifest('diffed'));
    const diff = await kubectl(['diff', '--server-side', '--force-conflicts', '-f', file]);
    expect(diff.code, diff.stderr).to.equal(1);
    expect(diff.stdout)
      .to.match(/^-\s+mode: edited$/m)
      .and.match(/^\+\s+mode: diffed$/m);
    expect((await json('get', 'configmap', 'applied')).data, 'diff is a dry run').to.deep.equal({ mode: 'edited' });
  });
});
