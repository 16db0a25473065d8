/**
 * `npm run refresh:protobuf`: copies the upstream `generated.proto` files the in-memory API server decodes and
 * encodes protobuf with (built-in kinds it serves, plus the apimachinery messages they import) from the Go module
 * cache into `src/testing/apiserver/protobuf/vendor/`, with the Apache-2.0 license they are published under.
 * Modules missing from the cache are fetched with `go mod download`.
 *
 * It also regenerates `src/testing/apiserver/protobuf/go-fields.json`, what the .proto files do not say and the Go
 * structs do (read by `scripts/protobuf-pointers/main.go` with go/parser): which fields are pointers (an explicit
 * zero is sent, and meant) and which are inlined in the JSON form (`json:",inline"`).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const version = 'v0.36.3';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(repoRoot, 'src/testing/apiserver/protobuf/vendor');

/** module → package directories whose generated.proto is needed. */
const files: Record<string, string[]> = {
  'k8s.io/api': ['core/v1', 'apps/v1', 'coordination/v1', 'events/v1', 'autoscaling/v1'],
  'k8s.io/apimachinery': [
    'pkg/apis/meta/v1',
    'pkg/runtime',
    'pkg/runtime/schema',
    'pkg/util/intstr',
    'pkg/api/resource',
  ],
};

function moduleDir(module: string): string {
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const cached = join(cache, `${module}@${version}`);
  if (existsSync(cached)) return cached;
  return (
    JSON.parse(execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], { encoding: 'utf8' })) as {
      Dir: string;
    }
  ).Dir;
}

rmSync(target, { recursive: true, force: true });
/** `<Go package directory>=<proto package>` for each vendored file, for the Go struct reader. */
const goPackages: string[] = [];
for (const [module, packages] of Object.entries(files)) {
  const dir = moduleDir(module);
  for (const pkg of packages) {
    const to = join(target, module, pkg, 'generated.proto');
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(dir, pkg, 'generated.proto'), to);
    const protoPackage = /^package ([\w.]+);$/m.exec(readFileSync(to, 'utf8'))?.[1];
    if (protoPackage === undefined) throw new Error(`${to} declares no package`);
    goPackages.push(`${join(dir, pkg)}=${protoPackage}`);
  }
  copyFileSync(join(dir, 'LICENSE'), join(target, module, 'LICENSE'));
}
// Standard library only: GOPATH mode, so no enclosing module is consulted.
const goFields = JSON.parse(
  execFileSync('go', ['run', 'main.go', ...goPackages], {
    cwd: join(repoRoot, 'scripts/protobuf-pointers'),
    encoding: 'utf8',
    env: { ...process.env, GO111MODULE: 'off' },
  }),
) as { pointers: Record<string, string[]>; inline: Record<string, string[]> };
const sortedKeys = (table: Record<string, string[]>) =>
  Object.fromEntries(
    Object.keys(table)
      .sort()
      .map((key) => [key, table[key]]),
  );
const fieldsDocument = {
  source: `Go structs of ${Object.keys(files)
    .map((m) => `${m}@${version}`)
    .join(' and ')}`,
  generatedBy: 'scripts/refresh-protobuf.ts',
  pointers: sortedKeys(goFields.pointers),
  inline: sortedKeys(goFields.inline),
};
writeFileSync(
  join(repoRoot, 'src/testing/apiserver/protobuf/go-fields.json'),
  `${JSON.stringify(fieldsDocument, null, 1)}\n`,
);
writeFileSync(
  join(target, 'README.md'),
  `# Vendored protobuf definitions\n\nCopied unchanged by \`scripts/refresh-protobuf.ts\` from ${Object.keys(files)
    .map((m) => `${m}@${version}`)
    .join(' and ')}\n(Apache License 2.0, see the LICENSE file of each module). Do not edit: refresh instead.\n`,
);
console.log(`copied ${Object.values(files).flat().length} generated.proto files to ${target}`);
console.log(
  `wrote ${Object.keys(goFields.pointers).length} messages with pointer fields, ${Object.keys(goFields.inline).length} with inline ones, to go-fields.json`,
);
