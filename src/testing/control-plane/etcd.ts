import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fetchText, freePort } from './http.js';
import { spawnGroup } from './processes.js';
import type { GroupProcess } from './processes.js';
import { waitUntilReady } from './readiness.js';

/** A running single-member etcd on loopback. */
export interface EtcdServer {
  readonly url: string;
  readonly process: GroupProcess;
  /** Compacts etcd's history up to its current revision, returns that revision. */
  compact(): Promise<number>;
}

/**
 * Starts etcd with a fresh data dir under `workDir`, plain HTTP on 127.0.0.1, no fsync, and waits for `/health`.
 *
 * # Caveats
 * `--unsafe-no-fsync` trades durability for speed: data survives a kube-apiserver restart, not a machine crash.
 */
export async function startEtcd(
  binary: string,
  workDir: string,
  extraArgs: readonly string[],
  timeoutMs: number,
): Promise<EtcdServer> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const dataDir = join(workDir, 'etcd-data');
  // A retry after a port clash must not find the half-initialised member (with the old peer URL) of the last try.
  rmSync(dataDir, { recursive: true, force: true });
  const args = [
    '--name=rxkube',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=rxkube=${peer}`,
    '--initial-cluster-state=new',
    '--unsafe-no-fsync=true',
    '--log-level=warn',
    ...extraArgs,
  ];
  const process = spawnGroup('etcd', binary, args, join(workDir, 'etcd.log'), workDir);
  try {
    await waitUntilReady(
      'etcd',
      process,
      async () => {
        const { status, body } = await fetchText(`${url}/health`, { timeoutMs: 2000 });
        return status === 200 && /"health":\s*"true"/.test(body) ? true : `HTTP ${status} ${body.trim()}`;
      },
      timeoutMs,
    );
  } catch (error) {
    await process.stop(2000);
    throw error;
  }
  return {
    url,
    process,
    async compact() {
      // etcd's JSON gateway: read the current revision, then compact to it (physical: wait until it is applied).
      const range = await fetchText(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: 'AA==' }) });
      const revision = Number((JSON.parse(range.body) as { header?: { revision?: string } }).header?.revision);
      if (range.status !== 200 || !Number.isSafeInteger(revision))
        throw new Error(`etcd range failed: HTTP ${range.status} ${range.body}`);
      const compaction = await fetchText(`${url}/v3/kv/compaction`, {
        method: 'POST',
        body: JSON.stringify({ revision: String(revision), physical: true }),
      });
      if (compaction.status !== 200 && !/required revision has been compacted/.test(compaction.body)) {
        throw new Error(`etcd compaction to ${revision} failed: HTTP ${compaction.status} ${compaction.body}`);
      }
      return revision;
    },
  };
}
