/**
 * What the specs of the examples' `deploy/` folders share: the folders themselves (found, not listed, so a new
 * example is covered as soon as it has one), their manifests, and how the container of a Deployment is started.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject, V1Container, V1Deployment } from '@kubernetes/client-node';
import { build } from 'esbuild';
import { parseAllDocuments } from 'yaml';

/** The repository's `examples/` folder. */
export const EXAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The namespace every example's manifests deploy into. */
export const DEPLOY_NAMESPACE = 'rxkube-examples';

/**
 * Packages the examples import at run time beyond rxkube's own dependencies (they read their CRDs and defaults as
 * YAML). `examples/Dockerfile` installs each into the image, at the lockfile's version.
 */
export const EXAMPLE_PACKAGES: readonly string[] = ['yaml'];

/** An example's `deploy/` folder. */
export interface DeployFolder {
  /** The example's folder name, e.g. `pod-logger`. */
  readonly example: string;
  /** The absolute path of its `deploy/` folder (a kustomization: `kubectl apply -k <dir>`). */
  readonly dir: string;
}

/**
 * Every `examples/<name>/deploy/` holding a `kustomization.yaml` whose example runs (has a `main.ts`), sorted by
 * name. A deploy/ folder that arrives on a branch before its example is left out until the example is there.
 */
export function deployFolders(): DeployFolder[] {
  const has = (name: string, ...path: string[]): boolean => existsSync(join(EXAMPLES_DIR, name, ...path));
  return readdirSync(EXAMPLES_DIR, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && has(entry.name, 'deploy', 'kustomization.yaml') && has(entry.name, 'main.ts'),
    )
    .map((entry) => ({ example: entry.name, dir: join(EXAMPLES_DIR, entry.name, 'deploy') }))
    .sort((a, b) => a.example.localeCompare(b.example));
}

/**
 * The objects of a `deploy/` folder: every document of every file its `kustomization.yaml` lists under
 * `resources`, in order. A YAML error, or a listed file that is not there, throws naming the file.
 */
export function deployObjects(folder: DeployFolder): KubernetesObject[] {
  const kustomization = parseOne(join(folder.dir, 'kustomization.yaml')) as { resources?: string[] };
  return (kustomization.resources ?? []).flatMap((file) => {
    const path = join(folder.dir, file);
    const documents = parseAllDocuments(readFileSync(path, 'utf8'));
    return documents
      .map((document) => {
        if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]!.message}`);
        return document.toJS() as KubernetesObject;
      })
      .filter((object) => object !== null);
  });
}

function parseOne(path: string): unknown {
  const [document] = parseAllDocuments(readFileSync(path, 'utf8'));
  if (document === undefined || document.errors.length > 0)
    throw new Error(`${path}: ${document?.errors[0]?.message ?? 'empty'}`);
  return document.toJS();
}

/** The folder's one Deployment and its one container; throws when there is not exactly one of each. */
export function deployedContainer(folder: DeployFolder): {
  readonly deployment: V1Deployment;
  readonly container: V1Container;
} {
  const deployments = deployObjects(folder).filter((object) => object.kind === 'Deployment') as V1Deployment[];
  if (deployments.length !== 1) throw new Error(`${folder.dir}: expected one Deployment, found ${deployments.length}`);
  const containers = deployments[0]!.spec?.template.spec?.containers ?? [];
  if (containers.length !== 1) throw new Error(`${folder.dir}: expected one container, found ${containers.length}`);
  return { deployment: deployments[0]!, container: containers[0]! };
}

/** How to start a Deployment's container outside a cluster, from a build of the image's files. */
export interface ContainerStart {
  /** `node`'s own options, e.g. `--enable-source-maps`. */
  readonly nodeOptions: string[];
  /** The script, relative to the image's working directory (`/app`), e.g. `examples/pod-logger/main.js`. */
  readonly script: string;
  /** The arguments, with `$(VAR)` replaced as the kubelet does. */
  readonly args: string[];
  /** The container's literal environment, plus the `fieldRef` values given in `fieldValues`. */
  readonly env: Record<string, string>;
}

/**
 * The container's `command` (`node [options] <script>`), `args` and `env` as the kubelet would run them, with
 * `fieldValues` standing in for the downward API (e.g. `{ 'metadata.namespace': 'rxkube-examples' }`).
 *
 * # Guarantees
 * - Throws when the command is not `node … <script>`, or an env var reads a field `fieldValues` does not give, or
 *   an argument names a `$(VAR)` the container does not define (the kubelet would pass it through unexpanded).
 */
export function containerStart(container: V1Container, fieldValues: Readonly<Record<string, string>>): ContainerStart {
  const [binary, ...rest] = container.command ?? [];
  const scriptAt = rest.findIndex((part) => !part.startsWith('-'));
  if (binary !== 'node' || scriptAt < 0)
    throw new Error(
      `container ${container.name}: command must be node [options] <script>, got ${JSON.stringify(container.command)}`,
    );
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (field !== undefined && fieldValues[field] !== undefined) env[variable.name] = fieldValues[field];
    else
      throw new Error(
        `container ${container.name}: env ${variable.name} needs a value for ${field ?? 'its valueFrom'}`,
      );
  }
  const args = (container.args ?? []).map((arg) =>
    arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (_whole, name: string) => {
      if (env[name] === undefined)
        throw new Error(
          `container ${container.name}: argument ${arg} names $(${name}), which the container does not define`,
        );
      return env[name];
    }),
  );
  return {
    nodeOptions: rest.slice(0, scriptAt),
    script: rest[scriptAt]!,
    args: [...rest.slice(scriptAt + 1), ...args],
    env,
  };
}

/**
 * The image's `/app` in a new temp dir: `npm run build:examples` output, with `package.json` (`"type": "module"`)
 * and `node_modules` (a link to the repository's) beside it, as examples/Dockerfile lays them out. The caller
 * removes it.
 */
export function buildImageFiles(): string {
  const repoRoot = resolve(EXAMPLES_DIR, '..');
  const app = mkdtempSync(join(tmpdir(), 'rxkube-image-'));
  execFileSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts', 'build-examples.ts'), app], {
    cwd: repoRoot,
    stdio: 'pipe',
    timeout: 120_000,
  });
  copyFileSync(join(repoRoot, 'package.json'), join(app, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(app, 'node_modules'), 'dir');
  return app;
}

/**
 * The packages (`name` or `@scope/name`, sorted) that the JavaScript files under `dirs` of `root` import, statically or
 * with `import('literal')`; Node's built-in modules and relative imports are left out.
 *
 * esbuild parses and resolves every file, so an import written across lines, after a comment or inside a template
 * is found as Node would find it, and a relative import of a file the image lacks fails the build with esbuild's
 * message rather than passing unseen. An `import()` of a computed specifier names no package and is not listed.
 */
export async function packagesImportedBy(root: string, dirs: readonly string[]): Promise<string[]> {
  const entryPoints = dirs.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.js'))
      .map((path) => join(root, dir, path)),
  );
  const { metafile } = await build({
    entryPoints,
    absWorkingDir: root,
    outdir: join(root, 'esbuild-out'),
    write: false,
    bundle: true,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const packages = new Set<string>();
  for (const input of Object.values(metafile.inputs)) {
    for (const { path, external } of input.imports) {
      if (external !== true || isBuiltin(path) || path.startsWith('.')) continue;
      packages.add(path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]!);
    }
  }
  return [...packages].sort();
}
