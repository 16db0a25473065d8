/**
 * The in-memory API server in a process of its own (`rxkube-test-cluster`), so that a benchmark's client does not
 * share its CPU and heap with the server it measures against.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';

/** Starts `rxkube-test-cluster` (HTTPS with its own CA when `tls`) and returns its kubeconfig and a stop function. */
export async function testClusterProcess(
  options: { tls?: boolean } = {},
): Promise<{ kubeConfig: KubeConfig; stop: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-bench-cluster-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const args = [
    '--import',
    'tsx',
    'src/testing/cli/test-cluster.ts',
    '--port',
    '0',
    '--kubeconfig',
    kubeconfigPath,
    ...(options.tls ? ['--tls'] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('ready ')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`test cluster exited with ${code}`)));
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  return {
    kubeConfig,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
