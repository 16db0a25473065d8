/**
 * What the examples' specs share: an example started as a child process, and a controller pointed at a cluster
 * that refuses connections.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { waitFor } from './wait.js';

/** A running example process. */
export interface ExampleProcess {
  readonly child: ChildProcess;
  /** Its stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** Its stdout so far: the controller's lines. */
  stdout(): string;
  /** Its stderr so far: under the manager, one JSON record a line. */
  stderr(): string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<[number | null, string | null]>;
}

/** Starts `node --import tsx <script> <args>` with no kubeconfig (so examples use the embedded cluster). */
export function spawnExample(script: string, ...args: string[]): ExampleProcess {
  return spawnNode(['--import', 'tsx', script, ...args]);
}

/** Options of {@link spawnNode}. */
export interface SpawnOptions {
  /** Over this process's environment; an `undefined` value removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Keep stdin open as a pipe (`child.stdin`), e.g. as the lifeline of `--stop-on-stdin-eof`. Default: ignored. */
  readonly stdin?: boolean;
}

/** Starts `node <args>` (this process's Node) with no kubeconfig, e.g. a compiled example with `RXKUBE_IN_CLUSTER=true`. */
export function spawnNode(args: readonly string[], options: SpawnOptions = {}): ExampleProcess {
  const child = spawn(process.execPath, args, {
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '', ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    stderr += chunk;
  });
  return {
    child,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: once(child, 'exit') as Promise<[number | null, string | null]>,
  };
}

/** The metrics and probe base URLs an example under the manager printed (`<name>: metrics on …, probes on …`). */
export function servedUrls(stdout: string): { readonly metrics: string; readonly health: string } {
  const match = /metrics on (http:\/\/\S+)\/metrics, probes on (http:\/\/\S+)\/healthz/.exec(stdout);
  if (match === null) throw new Error(`no "metrics on …, probes on …" line in:\n${stdout}`);
  return { metrics: match[1]!, health: match[2]! };
}

/** The manager's JSON log records on an example's stderr; a line that is not JSON fails with the line. */
export function jsonRecords(stderr: string): Array<{ readonly msg: string; readonly [field: string]: unknown }> {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as { msg: string };
      } catch {
        throw new Error(`not a JSON log record: ${line}`);
      }
    });
}

/**
 * Starts a controller against 127.0.0.1:1 (nothing listens there) and returns its first two lines: the start line
 * and what it says about the connection. Stops it afterwards.
 */
export async function firstLinesUnreachable(
  start: (kubeConfig: KubeConfig, print: (line: string) => void) => Subscription,
): Promise<string[]> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'closed', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'c', cluster: 'closed', user: 'u' }],
    currentContext: 'c',
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
