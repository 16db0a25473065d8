import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** A CLI started as a child process that has printed its `ready <url>` line. */
export interface RunningCli {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the process wrote to stdout, in order. */
  readonly stdoutLines: string[];
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code (SIGKILL after `graceMs`, resolving null). */
  terminate(graceMs?: number): Promise<number | null>;
}

/**
 * Starts a TypeScript CLI entry point on the same Node as the test runner and waits for its `ready <url>` line.
 * Rejects, with the process's stderr, if the line does not come within `timeoutMs` or the process exits first.
 */
export async function startCli(entry: string, args: readonly string[], timeoutMs = 15000): Promise<RunningCli> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const stdoutLines: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} printed no ready line within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    lines.on('line', (line) => {
      stdoutLines.push(line);
      const match = /^ready (\S+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready; stderr:\n${stderr}`));
    });
  });
  const terminate = async (graceMs = 10000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const [code] = await exited;
    clearTimeout(killer);
    return code;
  };
  return { child, url, stdoutLines, stderr: () => stderr, terminate };
}
