/**
 * Building a Go benchmark program of `bench/<folder>` once per run, into a temporary directory, so that its figures
 * come from the same run (and the same machine load) as rxkube's. Used by `bench/controller` and `bench/queue`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A built binary and how to remove it, or why there is none (shown in a table instead of figures). */
export type GoBuild =
  | { readonly ok: true; readonly binary: string; readonly cleanup: () => void }
  | { readonly ok: false; readonly note: string; readonly cleanup: () => void };

/**
 * Compiles `bench/<folder>` with `GOFLAGS=-mod=mod` (a missing go.sum line is filled in rather than failing) into a
 * temporary directory. Never throws: a missing `go` or a failed build becomes a note. `cleanup` removes the directory.
 */
export function buildGo(folder: string, name: string): GoBuild {
  const dir = mkdtempSync(join(tmpdir(), `rxkube-${name}-`));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  const binary = join(dir, name);
  const build = spawnSync('go', ['build', '-o', binary, '.'], {
    cwd: join(dirname(fileURLToPath(import.meta.url)), '..', folder),
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (build.error !== undefined) {
    const missing = (build.error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, note: missing ? '`go` is not installed' : `go build failed: ${build.error.message}`, cleanup };
  }
  if (build.status !== 0)
    return { ok: false, note: `go build failed (exit ${build.status}): ${lastLine(build.stderr)}`, cleanup };
  return { ok: true, binary, cleanup };
}

/** The last line of a process's output, for a one-line note. */
export function lastLine(text: string | null): string {
  const lines = (text ?? '').trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
