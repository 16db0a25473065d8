import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterHandle } from '../cluster.js';
import type { CertificateAuthority } from '../pki/index.js';
import { ADMIN_USER, startApiServer, writeApiServerSecrets } from './apiserver.js';
import type { ApiServerConfig } from './apiserver.js';
import { resolveControlPlaneAssets } from './assets.js';
import type { ControlPlaneAssets } from './assets.js';
import { startEtcd } from './etcd.js';
import type { EtcdServer } from './etcd.js';
import { freePort } from './http.js';
import { buildKubeConfig, writeKubeConfigFile } from '../kubeconfig.js';
import { removeOnExit } from './processes.js';
import type { GroupProcess } from './processes.js';

/** Options for {@link startControlPlane}. Every field is optional. */
export interface ControlPlaneOptions {
  /** A directory holding `kube-apiserver` and `etcd`; overrides `RXKUBE_ASSETS`/`KUBEBUILDER_ASSETS`/the cache. */
  readonly assetsDir?: string;
  /** kube-apiserver's secure port on 127.0.0.1; default (or 0) picks a free one. */
  readonly port?: number;
  /** The static admin bearer token; default 48 random hex characters. */
  readonly adminToken?: string;
  /** Extra kube-apiserver flags, appended after rxkube's; a repeated scalar flag takes the last value. */
  readonly apiServerArgs?: readonly string[];
  /** Extra etcd flags, appended after rxkube's. */
  readonly etcdArgs?: readonly string[];
  /**
   * kube-apiserver's own etcd compaction period (`--etcd-compaction-interval`), default `5m` like a real cluster.
   * `0s` turns it off; {@link ControlPlane.compactEtcd} compacts on demand either way.
   */
  readonly etcdCompactionInterval?: string;
  /** Service cluster IP range; default `10.0.0.0/24`. */
  readonly serviceClusterIpRange?: string;
  /** Parent of the temp dir; default `os.tmpdir()`. */
  readonly tempDirParent?: string;
  /** How long each process may take to become ready; default 60 s. */
  readonly startTimeoutMs?: number;
  /** SIGTERM grace before SIGKILL when stopping a process; default 5 s. */
  readonly stopGraceMs?: number;
}

/**
 * A running kube-apiserver + etcd pair, the real-server side of {@link ClusterHandle}.
 *
 * # Guarantees
 * - Everything listens on 127.0.0.1 only. etcd has a private temp data dir; nothing is shared between instances.
 * - `kubeConfig` authenticates with an admin client certificate (CN `rxkube-admin`, O `system:masters`), so RBAC
 *   allows it everything; `adminToken` is an equivalent static bearer token.
 * - `stop()` is idempotent: it SIGTERMs kube-apiserver then etcd (SIGKILL after `stopGraceMs`), waits for both to
 *   exit and removes the temp dir.
 * - If the runner dies first, exit hooks (and, for SIGKILL, a watchdog) kill both process groups.
 */
export interface ControlPlane extends ClusterHandle {
  /** etcd's client URL (plain HTTP on loopback). */
  readonly etcdUrl: string;
  /** Static bearer token for the same admin identity as the client certificate. */
  readonly adminToken: string;
  /** The cluster CA: issue more client certificates with `issueCertificate(ca, …)` to test RBAC as other users. */
  readonly ca: CertificateAuthority;
  /** Where the binaries came from. */
  readonly assets: ControlPlaneAssets;
  /** The temp dir holding etcd data, certificates and the two process logs. Removed by `stop()`. */
  readonly workDir: string;
  /** How long the start took, in milliseconds, from spawning etcd to kube-apiserver answering `/readyz`. */
  readonly startMs: number;
  /** The current process ids (undefined once stopped), for tests that assert nothing is left behind. */
  pids(): {
    /** etcd's process id. */
    etcd?: number;
    /** kube-apiserver's process id. */
    apiServer?: number;
  };
  /**
   * Stops kube-apiserver and starts it again on the same port with the same certificates, keeping etcd and its
   * data. Resolves when `/readyz` answers again; existing connections and watches are cut, which is the point.
   */
  restartApiServer(): Promise<void>;
  /**
   * Compacts etcd to its current revision and returns it. Any resourceVersion below it is then gone from etcd:
   * a list or watch from it that reaches etcd gets 410 Gone. Watches served by the watch cache still see events
   * the cache holds; restart kube-apiserver (fresh, empty cache) or disable its cache for the resource
   * (`--watch-cache-sizes=<resource>#0`) to make every older version expire.
   */
  compactEtcd(): Promise<number>;
}

/**
 * Starts etcd and kube-apiserver on loopback and resolves once kube-apiserver is ready (`/readyz` = 200).
 *
 * # Guarantees
 * - On failure nothing is left running or on disk, and the error carries the failing process's log tail.
 * - A port taken between choosing and binding it is retried with a new port (up to 3 attempts).
 *
 * # Caveats
 * - The binaries are not built here: run `npx rxkube-control-plane build` first, or set `RXKUBE_ASSETS` /
 *   `KUBEBUILDER_ASSETS` (see {@link resolveControlPlaneAssets}).
 * - No controller-manager or scheduler runs: no garbage collection, no ServiceAccount tokens, no pod scheduling.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  validateOptions(options);
  const assets = resolveControlPlaneAssets(options.assetsDir === undefined ? {} : { assetsDir: options.assetsDir });
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const stopGraceMs = options.stopGraceMs ?? 5_000;
  const workDir = mkdtempSync(join(options.tempDirParent ?? tmpdir(), 'rxkube-control-plane-'));
  const forgetTempDir = removeOnExit(workDir);
  const started = Date.now();

  let etcd: EtcdServer | undefined;
  let apiServer: GroupProcess | undefined;
  const cleanUp = async (): Promise<void> => {
    await apiServer?.stop(stopGraceMs);
    await etcd?.process.stop(stopGraceMs);
    rmSync(workDir, { recursive: true, force: true });
    forgetTempDir();
  };

  try {
    etcd = await retryOnPortClash(() => startEtcd(assets.etcd, workDir, options.etcdArgs ?? [], startTimeoutMs));
    const serviceClusterIpRange = options.serviceClusterIpRange ?? '10.0.0.0/24';
    const secrets = writeApiServerSecrets(
      join(workDir, 'pki'),
      firstServiceIp(serviceClusterIpRange),
      options.adminToken,
    );
    const etcdUrl = etcd.url;
    const baseConfig = {
      binary: assets.kubeApiServer,
      workDir,
      etcdUrl,
      secrets,
      serviceClusterIpRange,
      etcdCompactionInterval: options.etcdCompactionInterval ?? '5m',
      extraArgs: options.apiServerArgs ?? [],
    };
    let config: ApiServerConfig | undefined;
    const fixedPort = options.port ? options.port : undefined;
    apiServer = await retryOnPortClash(
      async () => {
        config = { ...baseConfig, port: fixedPort ?? (await freePort()) };
        return startApiServer(config, startTimeoutMs);
      },
      fixedPort === undefined ? 3 : 1,
    );
    const apiConfig = config!;
    const startMs = Date.now() - started;
    const url = `https://127.0.0.1:${apiConfig.port}`;
    const kubeConfig: KubeConfig = buildKubeConfig({
      name: 'rxkube-control-plane',
      url,
      caPem: secrets.ca.certPem,
      user: ADMIN_USER,
      client: secrets.admin,
    });
    const liveEtcd = etcd;

    let stopping: Promise<void> | undefined;
    let restarting: Promise<void> | undefined;
    return {
      url,
      kubeConfig,
      etcdUrl,
      adminToken: secrets.adminToken,
      ca: secrets.ca,
      assets,
      workDir,
      startMs,
      pids: () => ({
        ...(liveEtcd.process.alive() ? { etcd: liveEtcd.process.pid } : {}),
        ...(apiServer?.alive() ? { apiServer: apiServer.pid } : {}),
      }),
      writeKubeconfig: (path) => writeKubeConfigFile(kubeConfig, path),
      compactEtcd: () => liveEtcd.compact(),
      restartApiServer() {
        if (stopping) return Promise.reject(new Error('control plane is stopped; cannot restart kube-apiserver'));
        restarting ??= (async () => {
          try {
            await apiServer?.stop(stopGraceMs);
            // Same port: clients keep their URL. The old socket is closed (Go sets SO_REUSEADDR), but retry
            // briefly in case the kernel has not released it yet.
            apiServer = await retryOnPortClash(() => startApiServer(apiConfig, startTimeoutMs), 5, 200);
          } finally {
            restarting = undefined;
          }
        })();
        return restarting;
      },
      stop() {
        stopping ??= (async () => {
          await restarting?.catch(() => undefined);
          await cleanUp();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

const PORT_CLASH = /address already in use|bind: address/i;

async function retryOnPortClash<T>(start: () => Promise<T>, attempts = 3, delayMs = 0): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !PORT_CLASH.test((error as Error).message)) throw error;
      if (delayMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** The first usable address of an IPv4 CIDR (the `kubernetes` Service's ClusterIP), e.g. 10.0.0.0/24 → 10.0.0.1. */
export function firstServiceIp(cidr: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  const octets = match?.slice(1, 5).map(Number) ?? [];
  const bits = Number(match?.[5]);
  if (!match || octets.some((o) => o > 255) || bits < 8 || bits > 30) {
    throw new TypeError(`serviceClusterIpRange must be an IPv4 CIDR between /8 and /30, got ${JSON.stringify(cidr)}`);
  }
  const base = octets.reduce((n, o) => n * 256 + o, 0);
  const network = base - (base % 2 ** (32 - bits));
  const first = network + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(first / 2 ** shift) % 256).join('.');
}

function validateOptions(options: ControlPlaneOptions): void {
  const { port, adminToken } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${port}`);
  }
  // The token file is CSV: a comma, quote or newline would corrupt it (and kube-apiserver refuses to start).
  if (adminToken !== undefined && (!/^[\x21-\x7e]+$/.test(adminToken) || /[,"]/.test(adminToken))) {
    throw new TypeError('adminToken must be non-empty printable ASCII without spaces, commas or quotes');
  }
  for (const key of ['startTimeoutMs', 'stopGraceMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      throw new RangeError(`${key} must be a positive number, got ${value}`);
  }
}
