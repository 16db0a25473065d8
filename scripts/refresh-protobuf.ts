/**
 * `npm run refresh:protobuf`: copies the upstream `generated.proto` files the in-memory API server decodes and
 * encodes protobuf with (built-in kinds it serves, plus the apimachinery messages they import) from the Go module
 * cache into `src/testing/apiserver/protobuf/vendor/`, with the Apache-2.0 license they are published under.
 * Modules missing from the cache are fetched with `go mod download`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const version = 'v0.36.3';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(repoRoot, 'src/testing/apiserver/protobuf/vendor');

/** module → package directories whose generated.proto is needed. */
const files: Record<string, string[]> = {
  'k8s.io/api': ['core/v1', 'apps/v1', 'coordination/v1', 'events/v1', 'autoscaling/v1'],
  'k8s.io/apimachinery': ['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/runtime/schema', 'pkg/util/intstr', 'pkg/api/resource'],
};

function moduleDir(module: string): string {
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const cached = join(cache, `${module}@${version}`);
  if (existsSync(cached)) return cached;
  return (JSON.parse(execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], { encoding: 'utf8' })) as { Dir: string }).Dir;
}

rmSync(target, { recursive: true, force: true });
for (const [module, packages] of Object.entries(files)) {
  const dir = moduleDir(module);
  for (const pkg of packages) {
    const to = join(target, module, pkg, 'generated.proto');
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(dir, pkg, 'generated.proto'), to);
  }
  copyFileSync(join(dir, 'LICENSE'), join(target, module, 'LICENSE'));
}
writeFileSync(join(target, 'README.md'), `# Vendored protobuf definitions\n\nCopied unchanged by \`scripts/refresh-protobuf.ts\` from ${Object.keys(files).map((m) => `${m}@${version}`).join(' and ')}\n(Apache License 2.0, see the LICENSE file of each module). Do not edit: refresh instead.\n`);
console.log(`copied ${Object.values(files).flat().length} generated.proto files to ${target}`);
