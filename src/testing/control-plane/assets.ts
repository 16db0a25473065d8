import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The pinned control-plane versions. `test/control-plane/*\/go.mod` must require exactly these; the build script
 * refuses to build when they disagree.
 */
export const CONTROL_PLANE_VERSIONS = Object.freeze({
  /** The kube-apiserver version (k8s.io/kubernetes). */
  kubernetes: 'v1.36.3',
  /** The etcd version (go.etcd.io/etcd). */
  etcd: 'v3.6.16',
});

/** Name of the per-version cache directory, e.g. `v1.36.3-etcd-v3.6.16`. */
export const CONTROL_PLANE_VERSION_TAG = `${CONTROL_PLANE_VERSIONS.kubernetes}-etcd-${CONTROL_PLANE_VERSIONS.etcd}`;

/** Where the two binaries were found, and why that place was chosen. */
export interface ControlPlaneAssets {
  /** The directory the binaries are in. */
  readonly dir: string;
  /** The path of `kube-apiserver`. */
  readonly kubeApiServer: string;
  /** The path of `etcd`. */
  readonly etcd: string;
  /** `option` (an explicit `assetsDir`), `RXKUBE_ASSETS`, `KUBEBUILDER_ASSETS`, or `cache` (built by rxkube). */
  readonly source: 'option' | 'RXKUBE_ASSETS' | 'KUBEBUILDER_ASSETS' | 'cache';
}

/**
 * rxkube's cache root: `$RXKUBE_CACHE_DIR`, else `$XDG_CACHE_HOME/rxkube`, else `~/.cache/rxkube`.
 */
export function rxkubeCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RXKUBE_CACHE_DIR) return resolve(env.RXKUBE_CACHE_DIR);
  return join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'rxkube');
}

/** The directory `buildControlPlane()` (`rxkube-control-plane build`) builds into: `<cache root>/control-plane/<version tag>`. */
export function controlPlaneCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(rxkubeCacheRoot(env), 'control-plane', CONTROL_PLANE_VERSION_TAG);
}

/**
 * Which prebuilt-asset directory the environment names, if any: `RXKUBE_ASSETS` wins over `KUBEBUILDER_ASSETS`.
 */
export function assetsFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): { dir: string; source: 'RXKUBE_ASSETS' | 'KUBEBUILDER_ASSETS' } | undefined {
  if (env.RXKUBE_ASSETS) return { dir: resolve(env.RXKUBE_ASSETS), source: 'RXKUBE_ASSETS' };
  if (env.KUBEBUILDER_ASSETS) return { dir: resolve(env.KUBEBUILDER_ASSETS), source: 'KUBEBUILDER_ASSETS' };
  return undefined;
}

/**
 * Finds `kube-apiserver` and `etcd`: in `assetsDir` if given, else in the directory named by `RXKUBE_ASSETS` or
 * `KUBEBUILDER_ASSETS`, else in {@link controlPlaneCacheDir}.
 *
 * # Guarantees
 * Either both binaries exist and are executable, or this throws an `Error` that names the directory searched,
 * the missing file, and how to get it. It never falls through from an explicitly named directory to the cache:
 * a wrong `KUBEBUILDER_ASSETS` is reported, not silently ignored.
 */
export function resolveControlPlaneAssets(
  options: { assetsDir?: string; env?: NodeJS.ProcessEnv } = {},
): ControlPlaneAssets {
  const env = options.env ?? process.env;
  const named = options.assetsDir
    ? { dir: resolve(options.assetsDir), source: 'option' as const }
    : assetsFromEnvironment(env);
  const { dir, source } = named ?? { dir: controlPlaneCacheDir(env), source: 'cache' as const };
  const missing = missingBinaries(dir);
  if (missing.length > 0) {
    const hint =
      source === 'cache'
        ? 'run `npx rxkube-control-plane build` (needs Go >= 1.26; `npm run control-plane:build` in a clone of rxkube), or point RXKUBE_ASSETS / KUBEBUILDER_ASSETS at a directory holding both binaries'
        : `fix ${source === 'option' ? 'the assetsDir option' : source} or unset it to use rxkube's own build`;
    throw new Error(
      `control plane binaries not found: ${missing.join(', ')} missing or not executable in ${dir} (from ${source}); ${hint}`,
    );
  }
  return { dir, source, kubeApiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd') };
}

/** The binary names (`kube-apiserver`, `etcd`) absent or not executable in `dir`. */
export function missingBinaries(dir: string): string[] {
  return ['kube-apiserver', 'etcd'].filter((name) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}
