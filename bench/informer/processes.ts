/**
 * Child-process plumbing for the informer benchmark: fork a TypeScript script with IPC, await typed messages with
 * a deadline, stop it for sure.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** A forked benchmark process and a queue of the messages it sent. */
export interface Child {
  readonly process: ChildProcess;
  send(message: object): void;
  /** The next message of `type` (earlier messages of other types are kept); rejects after `limitMs`. */
  next<M extends { type: string }>(type: M['type'], limitMs: number): Promise<M>;
  /** Asks politely with `{ type: 'stop' }`, then kills after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Forks `bench/informer/<script>` under the same Node with tsx and --expose-gc (plus `nodeOptions`). */
export function forkScript(script: string, args: string[], nodeOptions: readonly string[] = []): Child {
  const execArgv = ['--import', 'tsx', '--expose-gc', ...nodeOptions];
  const child = fork(join(here, script), args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: { type: string }[] = [];
  const waiters: (() => void)[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (message) => {
    inbox.push(message as { type: string });
    for (const wake of waiters.splice(0)) wake();
  });
  child.once('exit', () => {
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    process: child,
    send: (message) => child.send(message),
    next: <M extends { type: string }>(type: M['type'], limitMs: number) =>
      new Promise<M>((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`${script}: no "${type}" message within ${limitMs} ms`)),
          limitMs,
        );
        const look = (): void => {
          const index = inbox.findIndex((m) => m.type === type);
          if (index !== -1) {
            clearTimeout(deadline);
            resolve(inbox.splice(index, 1)[0] as M);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(deadline);
            reject(new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before sending "${type}"`));
          } else {
            waiters.push(look);
          }
        };
        look();
      }),
    stop: async (graceMs = 5000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until `server` (which answers `{ type: 'watchers' }` with `{ type: 'watchers', count }`) has one open watch. */
export async function waitForOneWatch(server: Child): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    server.send({ type: 'watchers' });
    const { count } = await server.next<{ type: 'watchers'; count: number }>('watchers', 10_000);
    if (count === 1) return;
    if (Date.now() > deadline) throw new Error(`expected exactly one open watch, the server has ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
