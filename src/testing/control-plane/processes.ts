import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';

/**
 * A child process running in its own process group, with its output going to a log file.
 *
 * # Guarantees
 * - The child is the leader of a new process group (`detached: true`), so signalling `-pid` reaches anything it
 *   forks, and a Ctrl-C in the parent's terminal does not hit it before the parent can shut it down in order.
 * - It is killed with SIGKILL when the parent exits (the 'exit' hook), on an unhandled SIGINT/SIGTERM/SIGHUP, and
 *   (through a tiny `sh` watchdog) within about two seconds after the parent is killed outright, e.g. by SIGKILL.
 *   When the parent has its own handler for the signal, that handler decides; the 'exit' hook still reaps.
 * - Like a listening server, a running child keeps the parent's event loop alive until it is stopped: a CLI needs
 *   no extra keep-alive, and a test that forgets `stop()` shows up as a runner that does not exit.
 */
export interface GroupProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  readonly exited: Promise<string>;
  /** True until the process has exited. */
  alive(): boolean;
  /** The last `bytes` of the log file, for error messages. */
  logTail(bytes?: number): string;
  /**
   * SIGTERM to the group, SIGKILL after `graceMs`; resolves when the process has exited. Idempotent.
   */
  stop(graceMs: number): Promise<void>;
}

/** Starts `command` in its own process group with stdout and stderr appended to `logFile`. */
export function spawnGroup(
  name: string,
  command: string,
  args: readonly string[],
  logFile: string,
  workDir?: string,
): GroupProcess {
  // Installed on first use, not at import: merely importing rxkube/testing must not touch signal handling.
  installExitHooks();
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd], env: childEnvironment() });
  } finally {
    closeSync(fd);
  }
  let exitedFlag = false;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve(signal ? `signal ${signal}` : `code ${code}`);
    });
    child.once('error', (error) => {
      exitedFlag = true;
      resolve(`spawn error: ${error.message}`);
    });
  });
  const pid = child.pid;
  if (pid === undefined) {
    // spawn failed synchronously (ENOENT, EACCES); the 'error' event carries the reason.
    return deadProcess(name, logFile, exited);
  }
  const watchdog = spawnWatchdog(pid, workDir);
  registry.add(pid);
  void exited.then(() => {
    registry.delete(pid);
    killQuietly(watchdog, 'SIGKILL');
  });

  let stopping: Promise<void> | undefined;
  return {
    name,
    pid,
    logFile,
    exited,
    alive: () => !exitedFlag,
    logTail: (bytes) => tail(logFile, bytes),
    stop(graceMs) {
      stopping ??= (async () => {
        if (exitedFlag) return;
        killGroup(pid, 'SIGTERM');
        if (await settlesWithin(exited, graceMs)) return;
        killGroup(pid, 'SIGKILL');
        await exited;
      })();
      return stopping;
    },
  };
}

function deadProcess(name: string, logFile: string, exited: Promise<string>): GroupProcess {
  return {
    name,
    pid: -1,
    logFile,
    exited,
    alive: () => false,
    logTail: (bytes) => tail(logFile, bytes),
    stop: async () => undefined,
  };
}

/** Process-group ids still running; the exit hooks kill these. */
const registry = new Set<number>();
/** Temp directories to remove if the process exits before their owner's `stop()` ran. */
const tempDirs = new Set<string>();

/** Registers a directory to be removed by the exit hooks; returns the function that unregisters it. */
export function removeOnExit(dir: string): () => void {
  installExitHooks();
  tempDirs.add(dir);
  return () => tempDirs.delete(dir);
}

let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', reapEverything);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // Another listener (a CLI, a test runner) owns the shutdown and may stop children gracefully; the 'exit'
      // hook still reaps whatever it leaves. Alone, restore the default (terminate) that listening disabled.
      if (process.listenerCount(signal) > 1) return;
      reapEverything();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function reapEverything(): void {
  for (const pid of registry) killGroup(pid, 'SIGKILL');
  registry.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/**
 * A `sh` loop that, once this process is gone, SIGKILLs `pgid` and removes `workDir`: the one case exit hooks cannot
 * cover is the parent being killed with SIGKILL. It lives in its own group so that stopping the child's group does
 * not kill it first, and it only acts when the parent died (a child stopped normally just ends the loop).
 */
function spawnWatchdog(pgid: number, workDir: string | undefined): number | undefined {
  const script = [
    'while kill -0 "$1" 2>/dev/null && kill -0 -"$2" 2>/dev/null; do sleep 1; done',
    'if ! kill -0 "$1" 2>/dev/null; then kill -KILL -"$2" 2>/dev/null; sleep 1; [ -n "$3" ] && rm -rf -- "$3"; fi',
    'exit 0',
  ].join('\n');
  try {
    const dog = spawn('/bin/sh', ['-c', script, 'rxkube-watchdog', String(process.pid), String(pgid), workDir ?? ''], {
      detached: true,
      stdio: 'ignore',
    });
    dog.on('error', () => undefined);
    dog.unref();
    return dog.pid;
  } catch {
    return undefined;
  }
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  killQuietly(-pgid, signal);
}

function killQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone, which is what we wanted.
  }
}

/** True if `promise` settles within `ms`; the timer never outlives the wait. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * True if a process with this pid is running. A zombie (exited, not yet reaped by its parent, which for orphans is
 * an init that may reap late or never in a container) counts as gone: it holds no resources but a pid.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself contain ') '.
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

function tail(file: string, bytes = 4000): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.length > bytes ? `…${text.slice(-bytes)}` : text;
  } catch {
    return '';
  }
}

/** Children inherit the environment minus proxies: they only ever talk to 127.0.0.1. */
function childEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy'])
    delete env[key];
  return env;
}
