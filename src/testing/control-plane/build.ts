/**
 * Building the real control plane (kube-apiserver and etcd) from Go modules, for the e2e suites and for users of
 * the installed package.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONTROL_PLANE_VERSIONS,
  assetsFromEnvironment,
  controlPlaneCacheDir,
  missingBinaries,
  rxkubeCacheRoot,
} from './assets.js';

/**
 * The Go modules that build the binaries (their go.mod and go.sum only; no Go code), in a clone of the repository.
 * The published package does not ship them: an installed rxkube uses prebuilt binaries (`RXKUBE_ASSETS`,
 * `KUBEBUILDER_ASSETS`) or ones a clone built into the shared cache.
 */
const modulesDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'control-plane');

/** One binary: the Go module that builds it, its main package, and the version its go.mod must require. */
const targets = [
  {
    name: 'kube-apiserver',
    module: 'kube-apiserver',
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    requires: `k8s.io/kubernetes ${CONTROL_PLANE_VERSIONS.kubernetes}`,
    // What the Kubernetes release build stamps; without it /version reports v0.0.0-master.
    ldflags: versionStamp(CONTROL_PLANE_VERSIONS.kubernetes, [
      'k8s.io/component-base/version',
      'k8s.io/client-go/pkg/version',
    ]),
  },
  {
    name: 'etcd',
    module: 'etcd',
    pkg: 'go.etcd.io/etcd/server/v3',
    requires: `go.etcd.io/etcd/server/v3 ${CONTROL_PLANE_VERSIONS.etcd}`,
    ldflags: [],
  },
] as const;

function versionStamp(gitVersion: string, packages: readonly string[]): string[] {
  const [major, minor] = gitVersion.replace(/^v/, '').split('.');
  const values = {
    gitVersion,
    gitMajor: major!,
    gitMinor: minor!,
    gitTreeState: 'clean',
    buildDate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  return packages.flatMap((pkg) => Object.entries(values).map(([name, value]) => `-X ${pkg}.${name}=${value}`));
}

/**
 * Builds kube-apiserver and etcd from the Go module proxy into rxkube's cache (`~/.cache/rxkube/control-plane/
 * <version>/`, root overridable with `RXKUBE_CACHE_DIR`), or does nothing when `RXKUBE_ASSETS` /
 * `KUBEBUILDER_ASSETS` name prebuilt binaries or the cache already holds them. What `npm run control-plane:build`
 * and `npx rxkube-control-plane build` run.
 *
 * # Guarantees
 * - Resolves 0 when both binaries are usable afterwards; anything else after logging why and what to do.
 * - A binary appears in the cache only once it is completely built (written under a temporary name, then renamed).
 * - SIGINT and SIGTERM are forwarded to `go build`.
 *
 * # Caveats
 * - Needs Go >= 1.26 on `PATH`, the Go module proxy, and a clone of the repository (the published package does not
 *   ship the Go modules; an installed one says so and names the alternatives); a cold build takes several minutes.
 */
export async function buildControlPlane(
  log: (line: string) => void = (line) => console.log(`[control-plane:build] ${line}`),
): Promise<number> {
  const named = assetsFromEnvironment();
  if (named) {
    const missing = missingBinaries(named.dir);
    if (missing.length > 0) {
      log(
        `${named.source}=${named.dir} lacks ${missing.join(' and ')} (missing or not executable); fix or unset ${named.source}`,
      );
      return 1;
    }
    log(`using prebuilt binaries from ${named.source}=${named.dir}; building nothing`);
    return 0;
  }

  const outDir = controlPlaneCacheDir();
  const todo = targets.filter((t) => missingBinaries(outDir).includes(t.name));
  if (todo.length === 0) {
    log(
      `kube-apiserver ${CONTROL_PLANE_VERSIONS.kubernetes} and etcd ${CONTROL_PLANE_VERSIONS.etcd} already built in ${outDir}`,
    );
    return 0;
  }

  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) {
    log(
      'Go is not on PATH. Install Go >= 1.26, or set RXKUBE_ASSETS (or KUBEBUILDER_ASSETS) to a directory holding kube-apiserver and etcd, e.g. one from setup-envtest.',
    );
    return 1;
  }
  if (!existsSync(modulesDir)) {
    log(
      `this installed rxkube cannot build kube-apiserver and etcd: their Go modules (test/control-plane) ship only with the repository. Set RXKUBE_ASSETS (or KUBEBUILDER_ASSETS) to a directory holding both binaries, e.g. one from setup-envtest, or run \`npm run control-plane:build\` in a clone of rxkube (it builds into ${outDir}).`,
    );
    return 1;
  }
  log(`${go.stdout.trim()}; building ${todo.map((t) => t.name).join(' and ')} into ${outDir}`);

  for (const target of todo) {
    const goMod = readFileSync(join(modulesDir, target.module, 'go.mod'), 'utf8');
    if (!new RegExp(`^\\s*(require\\s+)?${escapeRegExp(target.requires)}\\s*$`, 'm').test(goMod)) {
      log(
        `${join(modulesDir, target.module, 'go.mod')} does not require ${target.requires}; keep it in step with CONTROL_PLANE_VERSIONS`,
      );
      return 1;
    }
  }

  mkdirSync(outDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Own build cache next to the binaries unless the caller chose one: reruns after a version bump stay fast.
    GOCACHE: process.env.GOCACHE ?? join(rxkubeCacheRoot(), 'control-plane', 'go-build'),
    GOFLAGS: [process.env.GOFLAGS, '-mod=mod'].filter(Boolean).join(' '),
    // Static binaries, as the Kubernetes release builds them.
    CGO_ENABLED: '0',
  };
  const total = Date.now();
  for (const target of todo) {
    const started = Date.now();
    const tmp = join(outDir, `.${target.name}.${process.pid}.tmp`);
    log(`go build ${target.pkg} (a cold build downloads modules and compiles for several minutes)`);
    const heartbeat = setInterval(() => log(`… still building ${target.name}, ${seconds(started)} s`), 30_000);
    const code = await run(
      log,
      'go',
      [
        'build',
        '-trimpath',
        '-buildvcs=false',
        `-ldflags=${['-s', '-w', ...target.ldflags].join(' ')}`,
        '-o',
        tmp,
        target.pkg,
      ],
      join(modulesDir, target.module),
      env,
    );
    clearInterval(heartbeat);
    if (code !== 0) {
      rmSync(tmp, { force: true });
      log(`building ${target.name} failed (exit ${code}); see the go output above`);
      return 1;
    }
    // Rename last so an interrupted build never leaves a half-written binary that looks usable.
    renameSync(tmp, join(outDir, target.name));
    log(`built ${target.name} in ${seconds(started)} s`);
  }
  log(`done in ${seconds(total)} s: ${outDir}`);
  return 0;
}

function run(
  log: (line: string) => void,
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  return new Promise((resolveCode) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
    process.once('SIGINT', forward).once('SIGTERM', forward);
    child.on('error', (error) => {
      log(`cannot run ${command}: ${error.message}`);
      resolveCode(1);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolveCode(code ?? (signal ? 128 : 1));
    });
  });
}

const seconds = (since: number): number => Math.round((Date.now() - since) / 1000);
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
