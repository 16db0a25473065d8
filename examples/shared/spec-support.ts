/**
 * What the examples' specs share: an example started as a child process, and a controller pointed at a cluster
 * that refuses connections.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { waitFor } from '../../spec/support/wait.js';

/** A running example process. */
export interface ExampleProcess {
  readonly child: ChildProcess;
  /** Its stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<[number | null, string | null]>;
}

/** Starts `node --import tsx <script> <args>` with no kubeconfig (so examples use the embedded cluster). */
export function spawnExample(script: string, ...args: string[]): ExampleProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return { child, output: () => out, exited: once(child, 'exit') as Promise<[number | null, string | null]> };
}

/**
 * Starts a controller against 127.0.0.1:1 (nothing listens there) and returns its first two lines: the start line
 * and what it says about the connection. Stops it afterwards.
 */
export async function firstLinesUnreachable(start: (kubeConfig: KubeConfig, print: (line: string) => void) => Subscription): Promise<string[]> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'closed', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }], contexts: [{ name: 'c', cluster: 'closed', user: 'u' }], currentContext: 'c',
  });
  const lines: string[] = [];
  const subscription = start(kubeConfig, (line) => lines.push(line));
  try {
    await waitFor(() => lines.length >= 2, 'a line about the connection');
    return lines.slice(0, 2);
  } finally {
    subscription.unsubscribe();
  }
}
