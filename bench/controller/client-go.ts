/**
 * Builds and runs the client-go workqueue benchmark in `bench/go`, so its figures come from the same run (and the
 * same machine load) as rxkube's. Used by `throughput.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One worker-count row of the Go program's output (see `bench/go/README.md`). */
export interface ClientGoThroughput {
  readonly workers: number;
  readonly adds: number;
  readonly processed: number;
  readonly totalSeconds: number;
  readonly addsPerSecond: number;
  readonly processedPerSecond: number;
  readonly addsPerSecondIncludingDrain: number;
}

/** The Go program's JSON document, the fields this benchmark reads. */
export interface ClientGoReport {
  readonly clientGo: string;
  readonly goVersion: string;
  readonly gomaxprocs: number;
  readonly throughput: readonly ClientGoThroughput[];
  readonly latency: {
    readonly p50Micros: number;
    readonly p99Micros: number;
    readonly adds: number;
    readonly received: number;
  };
}

/** Either the report, or why there is none (shown in the table instead of figures). */
export type ClientGoOutcome =
  | { readonly ok: true; readonly report: ClientGoReport }
  | { readonly ok: false; readonly note: string };

const goDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'go');

/**
 * Compiles `bench/go` once into a temporary directory (`GOFLAGS=-mod=mod`, so a missing go.sum line is filled in
 * rather than failing) and runs the binary. Never throws: a missing `go`, a failed build or unreadable output
 * becomes a note. The temporary directory is removed afterwards.
 */
export function runClientGo(): ClientGoOutcome {
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-workqueue-bench-'));
  try {
    const binary = join(dir, 'workqueue-bench');
    const build = spawnSync('go', ['build', '-o', binary, '.'], {
      cwd: goDir,
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (build.error !== undefined) {
      const missing = (build.error as NodeJS.ErrnoException).code === 'ENOENT';
      return {
        ok: false,
        note: missing ? '`go` is not installed: client-go skipped' : `go build failed: ${build.error.message}`,
      };
    }
    if (build.status !== 0)
      return { ok: false, note: `go build failed (exit ${build.status}): ${lastLine(build.stderr)}` };
    const run = spawnSync(binary, [], { encoding: 'utf8', timeout: 300_000, maxBuffer: 16 * 2 ** 20 });
    if (run.error !== undefined || run.status !== 0) {
      return {
        ok: false,
        note: `client-go benchmark failed: ${run.error?.message ?? `exit ${run.status}: ${lastLine(run.stderr)}`}`,
      };
    }
    try {
      return { ok: true, report: JSON.parse(run.stdout) as ClientGoReport };
    } catch (error) {
      return { ok: false, note: `client-go benchmark printed no JSON: ${String(error)}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function lastLine(text: string | null): string {
  const lines = (text ?? '').trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
