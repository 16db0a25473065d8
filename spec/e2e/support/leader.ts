/**
 * Helpers for the leader-election e2e specs: candidate processes (rxkube's, and client-go's from
 * test/leader-interop, built on demand and cached), their logs, and the spans in which each led.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEADER_JITTER_FACTOR } from '../../../src/leader/index.js';
import { rxkubeCacheRoot } from '../../../src/testing/control-plane/index.js';
import { expectDisjoint, spansFromMarks, spansOf, type LeadMark } from '../../leader/spans.js';
import type { CandidateConfig } from './leader-candidate.js';

/** Short timings, so a failover takes seconds: 4 s / 2.5 s / 0.5 s. */
export const FAST = { leaseDuration: 4_000, renewDeadline: 2_500, retryPeriod: 500 } as const;

/** The longest gap between two tries of a candidate that does not lead: client-go's jittered retry period. */
const LONGEST_TRY_GAP = FAST.retryPeriod * (1 + LEADER_JITTER_FACTOR);

/**
 * The longest a failover to an rxkube candidate may take after SIGKILL. The candidate first sees the leader's last
 * renewal at its next try (up to one jittered retry period later) and tries again the moment that observation is
 * `leaseDuration` old (a GET and a PUT); the last second is slack for a loaded 2-core machine.
 */
export const FAILOVER_LIMIT = FAST.leaseDuration + LONGEST_TRY_GAP + 1_000;

/**
 * The same for a client-go candidate, which waits for its next jittered tick after the observed lease expired,
 * rather than trying at the expiry: up to one more jittered retry period.
 */
export const CLIENT_GO_FAILOVER_LIMIT = FAILOVER_LIMIT + LONGEST_TRY_GAP;

const here = dirname(fileURLToPath(import.meta.url));
const interopDir = join(here, '..', '..', '..', 'test', 'leader-interop');

/** One JSON line a candidate wrote. */
export interface CandidateLine {
  readonly event: string;
  readonly at: number;
  readonly [field: string]: unknown;
}

/** A running (or finished) candidate process. */
export interface CandidateProcess {
  readonly identity: string;
  readonly implementation: 'rxkube' | 'client-go';
  readonly lines: CandidateLine[];
  /** When the process was seen to exit (ms since epoch), and how. */
  exitedAt: number | undefined;
  exit: string | undefined;
  readonly exited: Promise<void>;
  /** The process is alive and its last word is `leading`. */
  leading(): boolean;
  /** `[start, end)` spans of leadership; a span still open ends at the exit, or at `Infinity`. */
  spans(): Array<readonly [number, number]>;
  /** Sends `signal`; returns when it was sent. */
  signal(signal: NodeJS.Signals): number;
  stderr(): string;
}

/**
 * Builds the client-go candidate once per source version into `~/.cache/rxkube/leader-interop/<hash>/` and returns
 * the binary's path. Throws a clear error if Go is missing or the build fails.
 */
export function interopBinary(): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(interopDir, file)));
  const outDir = join(rxkubeCacheRoot(), 'leader-interop', hash.digest('hex').slice(0, 16));
  const binary = join(outDir, 'leader-interop');
  if (existsSync(binary)) return binary;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error !== undefined || go.status !== 0) {
    throw new Error(
      `the client-go interop spec needs Go >= 1.26 on PATH to build test/leader-interop (${go.error?.message ?? go.stderr.trim()})`,
    );
  }
  mkdirSync(outDir, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  const build = spawnSync('go', ['build', '-o', tmp, '.'], { cwd: interopDir, encoding: 'utf8', timeout: 600_000 });
  if (build.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(
      `go build of test/leader-interop failed (${build.error?.message ?? `exit ${build.status}`}):\n${build.stderr}`,
    );
  }
  // Renamed last, so an interrupted build never leaves a binary that looks usable.
  renameSync(tmp, binary);
  return binary;
}

/** Timings and Lease shared by every candidate of one spec. */
export interface Election {
  readonly kubeconfig: string;
  readonly namespace: string;
  readonly name: string;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
}

/**
 * Starts a candidate process of `implementation` with `identity`. Its stdin stays open as a lifeline: if this
 * process dies, even by SIGKILL, the candidate sees the end of its stdin and stops.
 */
export function startCandidate(
  implementation: 'rxkube' | 'client-go',
  identity: string,
  election: Election,
): CandidateProcess {
  const child: ChildProcess =
    implementation === 'rxkube'
      ? spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            join(here, 'leader-candidate.ts'),
            JSON.stringify({ ...election, identity } satisfies CandidateConfig),
          ],
          {
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        )
      : spawn(
          interopBinary(),
          [
            `-kubeconfig=${election.kubeconfig}`,
            `-namespace=${election.namespace}`,
            `-name=${election.name}`,
            `-identity=${identity}`,
            `-lease-duration=${election.leaseDuration}ms`,
            `-renew-deadline=${election.renewDeadline}ms`,
            `-retry-period=${election.retryPeriod}ms`,
            '-stop-on-stdin-eof',
          ],
          { stdio: ['pipe', 'pipe', 'pipe'] },
        );
  const lines: CandidateLine[] = [];
  let stderr = '';
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) if (line.trim() !== '') lines.push(JSON.parse(line) as CandidateLine);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const candidate: CandidateProcess = {
    identity,
    implementation,
    lines,
    exitedAt: undefined,
    exit: undefined,
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        candidate.exitedAt = Date.now();
        candidate.exit = signal ?? `code ${code}`;
        resolve();
      }),
    ),
    leading: () => candidate.exitedAt === undefined && lastWord(lines) === 'leading',
    spans: () =>
      spansFromMarks(
        lines.flatMap(({ event, at }): LeadMark[] =>
          event === 'leading'
            ? [{ at, leading: true }]
            : event === 'following' || event === 'exited'
              ? [{ at, leading: false }]
              : [],
        ),
        candidate.exitedAt,
      ),
    signal: (signal) => {
      const at = Date.now();
      child.kill(signal);
      return at;
    },
    stderr: () => stderr,
  };
  return candidate;
}

function lastWord(lines: readonly CandidateLine[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const event = lines[i]!.event;
    if (event === 'leading' || event === 'following') return event;
  }
  return undefined;
}

/** Fails when two candidates' leadership spans overlap (a span of a killed process ends when it was seen exiting). */
export function expectNoOverlap(candidates: readonly CandidateProcess[]): void {
  expectDisjoint(spansOf(candidates));
}

/** The spans of every candidate, relative to `origin`, for the spec's log. */
export function describeSpans(candidates: readonly CandidateProcess[], origin: number): string {
  return candidates
    .map(
      (c) =>
        `${c.identity} (${c.implementation}): ${
          c
            .spans()
            .map(([s, e]) => `[${s - origin}, ${e === Infinity ? '…' : e - origin})`)
            .join(' ') || 'never led'
        }`,
    )
    .join('\n');
}

/** Stops every candidate still running (SIGKILL) and waits for them to exit. */
export async function stopAll(candidates: readonly CandidateProcess[]): Promise<void> {
  for (const c of candidates) if (c.exitedAt === undefined) c.signal('SIGKILL');
  await Promise.all(candidates.map((c) => c.exited));
}
