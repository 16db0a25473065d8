/**
 * Builds and runs the client-go workqueue benchmark in `bench/go`, so its figures come from the same run (and the
 * same machine load) as rxkube's. Used by `throughput.ts`.
 */
import { spawnSync } from 'node:child_process';
import { buildGo, lastLine } from '../support/go.js';

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

/**
 * Compiles `bench/go` once into a temporary directory (see `buildGo`) and runs the binary. Never throws: a missing
 * `go`, a failed build or unreadable output becomes a note. The temporary directory is removed afterwards.
 */
export function runClientGo(): ClientGoOutcome {
  const build = buildGo('go', 'workqueue-bench');
  try {
    if (!build.ok)
      return {
        ok: false,
        note: build.note.startsWith('`go` is not installed') ? '`go` is not installed: client-go skipped' : build.note,
      };
    const run = spawnSync(build.binary, [], { encoding: 'utf8', timeout: 300_000, maxBuffer: 16 * 2 ** 20 });
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
    build.cleanup();
  }
}
