/**
 * `npm run build:examples [-- <outDir>]`: compiles every example's `main.ts`, with what it imports from `src/`, to
 * plain JavaScript (`tsconfig.examples.json`) in `dist-examples/` (or `outDir`), and copies beside it every other file
 * of `src/` and `examples/` but Markdown: what the compiled code reads at run time (the examples' CRDs, the in-memory
 * API server's `.proto` files) goes wherever the sources have it.
 *
 * The image (`examples/Dockerfile`) is built from this output: `node examples/<name>/main.js` in it is the same file
 * as `dist-examples/examples/<name>/main.js` here, and the layout keeps every relative import and
 * `new URL('./…', import.meta.url)` of the sources working.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(repoRoot, process.argv[2] ?? 'dist-examples');

/** Files under `dir` (relative to the repo root) whose name passes `wanted`, skipping node_modules. */
function filesUnder(dir: string, wanted: (name: string) => boolean): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && wanted(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
}

rmSync(outDir, { recursive: true, force: true });
// typescript's package exports hide bin/tsc; npm links it here.
execFileSync(
  join(repoRoot, 'node_modules', '.bin', 'tsc'),
  ['-p', join(repoRoot, 'tsconfig.examples.json'), '--outDir', outDir],
  { cwd: repoRoot, stdio: 'inherit' },
);
// Everything but the TypeScript (compiled above) and the prose: the CRDs, the .proto files, their licenses.
const assets = ['src', 'examples'].flatMap((dir) =>
  filesUnder(dir, (name) => !name.endsWith('.ts') && !name.endsWith('.md') && name !== 'Dockerfile'),
);
for (const asset of assets) cpSync(join(repoRoot, asset), join(outDir, asset));
console.log(`build:examples: ${relative(repoRoot, outDir) || '.'} (${assets.length} assets copied)`);
