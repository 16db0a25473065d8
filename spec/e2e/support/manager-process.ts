/**
 * `npm start`-like processes for the manager e2e specs: the pod logger (`examples/pod-logger/main.ts`) under the
 * manager against a real cluster, its printed lines (stdout), its JSON log records (stderr), and the spans in which
 * it led.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { spansFromMarks, type LeadMark } from '../../leader/spans.js';

/** One JSON record the manager logged; `at` is its `time` in ms since the epoch. */
export interface ManagerRecord {
  readonly msg: string;
  readonly at: number;
  readonly [field: string]: unknown;
}

/** A running (or finished) pod-logger process. */
export interface ManagerProcess {
  readonly identity: string;
  /** What it printed on stdout, line by line. */
  readonly lines: string[];
  /** What its manager logged on stderr, parsed. */
  readonly records: ManagerRecord[];
  exitedAt: number | undefined;
  exit: string | undefined;
  readonly exited: Promise<void>;
  /** Alive, and its last leadership record says it leads. */
  leading(): boolean;
  /** `[start, end)` spans of leadership from its records; an open span ends at the exit, or at `Infinity`. */
  spans(): Array<readonly [number, number]>;
  /** The time of its first record with `msg` (and matching `fields`), if any. */
  when(msg: string, fields?: Record<string, unknown>): number | undefined;
  signal(signal: NodeJS.Signals): number;
  stderr(): string;
}

/** Lease and timings of one spec; a namespace of its own keeps specs apart. */
export interface ManagerRun {
  readonly kubeconfig: string;
  readonly namespace: string;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
}

/**
 * Starts the pod logger as `identity`, with probes and metrics on free ports of 127.0.0.1 and its stdin held open
 * as a lifeline (`--stop-on-stdin-eof`): if the spec dies, the process stops too.
 */
export function startManagerProcess(identity: string, run: ManagerRun): ManagerProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join('examples', 'pod-logger', 'main.ts'),
      '--kubeconfig',
      run.kubeconfig,
      '--namespace',
      run.namespace,
      '--identity',
      identity,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      '--lease-duration',
      String(run.leaseDuration),
      '--renew-deadline',
      String(run.renewDeadline),
      '--retry-period',
      String(run.retryPeriod),
      '--stop-on-stdin-eof',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } },
  );
  const lines: string[] = [];
  const records: ManagerRecord[] = [];
  let stderr = '';
  const splitter = (onLine: (line: string) => void): ((chunk: string) => void) => {
    let pending = '';
    return (chunk) => {
      pending += chunk;
      const complete = pending.split('\n');
      pending = complete.pop()!;
      for (const line of complete) if (line.trim() !== '') onLine(line);
    };
  };
  child.stdout.setEncoding('utf8').on(
    'data',
    splitter((line) => lines.push(line)),
  );
  child.stderr.setEncoding('utf8').on(
    'data',
    splitter((line) => {
      stderr = `${stderr}${line}\n`.slice(-50_000);
      if (!line.startsWith('{')) return;
      const record = JSON.parse(line) as { msg: string; time: string };
      records.push({ ...record, at: Date.parse(record.time) });
    }),
  );
  const lastWord = (): string | undefined =>
    records.filter((r) => r.msg === 'leading' || r.msg === 'stopped leading').at(-1)?.msg;
  const handle: ManagerProcess = {
    identity,
    lines,
    records,
    exitedAt: undefined,
    exit: undefined,
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        handle.exitedAt = Date.now();
        handle.exit = signal ?? `code ${code}`;
        resolve();
      }),
    ),
    leading: () => handle.exitedAt === undefined && lastWord() === 'leading',
    spans: () =>
      spansFromMarks(
        records.flatMap(({ msg, at }): LeadMark[] =>
          msg === 'leading' ? [{ at, leading: true }] : msg === 'stopped leading' ? [{ at, leading: false }] : [],
        ),
        handle.exitedAt,
      ),
    when: (msg, fields = {}) =>
      records.find((r) => r.msg === msg && Object.entries(fields).every(([k, v]) => r[k] === v))?.at,
    signal: (signal) => {
      const at = Date.now();
      child.kill(signal);
      return at;
    },
    stderr: () => stderr,
  };
  return handle;
}

/** Stops every process still running (SIGKILL) and waits for them to exit. */
export async function stopManagers(processes: readonly ManagerProcess[]): Promise<void> {
  for (const p of processes) if (p.exitedAt === undefined) p.signal('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
}

/** The probe and metrics base URLs the process printed, once it has. */
export function urlsOf(p: ManagerProcess): { metrics: string; health: string } | undefined {
  for (const line of p.lines) {
    const match = /metrics on (http:\/\/\S+)\/metrics, probes on (http:\/\/\S+)\/healthz/.exec(line);
    if (match !== null) return { metrics: match[1]!, health: match[2]! };
  }
  return undefined;
}
