import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoreV1Api, Watch } from '@kubernetes/client-node';
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startControlPlane } from '../../src/testing/control-plane/index.js';
import { processExists } from '../../src/testing/control-plane/processes.js';
import { e2eCluster, isE2eRun, ownsControlPlane } from './support/cluster.js';
import type { E2eCluster } from './support/cluster.js';

const suffix = (): string => Math.random().toString(36).slice(2, 8);

/** The HTTP status of a client-node failure, or the error itself when it is not an API error. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The first event a watch from `resourceVersion` delivers (type and object), then the watch is aborted. */
async function firstWatchEvent(
  kubeConfig: KubeConfig,
  path: string,
  resourceVersion: string,
): Promise<{ type: string; object: { code?: number; metadata?: { name?: string } } }> {
  let controller: AbortController | undefined;
  const event = new Promise<{ type: string; object: { code?: number } }>((resolve, reject) => {
    new Watch(kubeConfig)
      .watch(
        path,
        { resourceVersion, allowWatchBookmarks: false },
        (type, object) => resolve({ type, object }),
        (error) => reject(error ?? new Error('watch ended without an event')),
      )
      .then((c) => (controller = c), reject);
  });
  try {
    return await event;
  } finally {
    controller?.abort();
  }
}

if (isE2eRun()) {
  describe('control plane (e2e)', () => {
    let cluster: E2eCluster;
    let core: CoreV1Api;
    const namespace = 'default';
    const created: string[] = [];

    before(async () => {
      cluster = await e2eCluster();
      core = cluster.handle.kubeConfig.makeApiClient(CoreV1Api);
    });

    after(async () => {
      for (const name of created) await core.deleteNamespacedConfigMap({ name, namespace }).catch(() => undefined);
    });

    const createConfigMap = async (data: Record<string, string>): Promise<V1ConfigMap> => {
      const name = `e2e-cp-${suffix()}`;
      created.push(name);
      return core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data } });
    };

    it('creates, reads, updates, lists and deletes a ConfigMap through client-node', async () => {
      const made = await createConfigMap({ phase: 'created' });
      const name = made.metadata!.name!;
      expect((await core.readNamespacedConfigMap({ name, namespace })).data).to.deep.equal({ phase: 'created' });

      const updated = await core.replaceNamespacedConfigMap({
        name,
        namespace,
        body: { ...made, data: { phase: 'updated' } },
      });
      expect(Number(updated.metadata!.resourceVersion)).to.be.greaterThan(Number(made.metadata!.resourceVersion));

      const listed = await core.listNamespacedConfigMap({ namespace, fieldSelector: `metadata.name=${name}` });
      expect(listed.items.map((cm) => cm.data)).to.deep.equal([{ phase: 'updated' }]);

      await core.deleteNamespacedConfigMap({ name, namespace });
      expect(await statusOf(core.readNamespacedConfigMap({ name, namespace }))).to.equal(404);
    });

    it('answers an update carrying a stale resourceVersion with 409 Conflict', async () => {
      const made = await createConfigMap({ n: '0' });
      const name = made.metadata!.name!;
      await core.replaceNamespacedConfigMap({ name, namespace, body: { ...made, data: { n: '1' } } });
      expect(
        await statusOf(core.replaceNamespacedConfigMap({ name, namespace, body: { ...made, data: { n: 'stale' } } })),
      ).to.equal(409);
    });

    if (ownsControlPlane) {
      it('serves the same client again after kube-apiserver restarts, with the data kept in etcd', async () => {
        const controlPlane = cluster.controlPlane!;
        const made = await createConfigMap({ survives: 'restart' });
        const before = controlPlane.pids();

        await controlPlane.restartApiServer();

        const after = controlPlane.pids();
        expect(after.etcd).to.equal(before.etcd);
        expect(after.apiServer).to.be.a('number').and.not.equal(before.apiServer);
        expect(processExists(before.apiServer!)).to.equal(false);
        const read = await core.readNamespacedConfigMap({ name: made.metadata!.name!, namespace });
        expect(read.data).to.deep.equal({ survives: 'restart' });
      });

      it('expires a watch from a resourceVersion older than the restarted watch cache with a 410 ERROR event', async () => {
        const controlPlane = cluster.controlPlane!;
        const made = await createConfigMap({ n: '0' });
        await core.patchNamespacedConfigMap({
          name: made.metadata!.name!,
          namespace,
          body: [{ op: 'replace', path: '/data/n', value: '1' }],
        });
        await controlPlane.compactEtcd();
        await controlPlane.restartApiServer();

        const event = await firstWatchEvent(
          cluster.handle.kubeConfig,
          `/api/v1/namespaces/${namespace}/configmaps`,
          made.metadata!.resourceVersion!,
        );
        expect(event.type).to.equal('ERROR');
        expect(event.object.code).to.equal(410);
      });
    }
  });

  if (ownsControlPlane) {
    describe('startControlPlane lifecycle (e2e)', () => {
      let parent: string;

      beforeEach(() => {
        parent = mkdtempSync(join(tmpdir(), 'rxkube-e2e-lifecycle-'));
      });

      afterEach(() => {
        rmSync(parent, { recursive: true, force: true });
      });

      it('stops both processes, removes its temp dir, and tolerates a second stop', async () => {
        const controlPlane = await startControlPlane({ tempDirParent: parent });
        const { etcd, apiServer } = controlPlane.pids();
        expect(processExists(etcd!) && processExists(apiServer!)).to.equal(true);
        expect(existsSync(controlPlane.workDir)).to.equal(true);

        await controlPlane.stop();
        await controlPlane.stop();

        expect(processExists(etcd!), 'etcd still running').to.equal(false);
        expect(processExists(apiServer!), 'kube-apiserver still running').to.equal(false);
        expect(controlPlane.pids()).to.deep.equal({});
        expect(existsSync(controlPlane.workDir)).to.equal(false);
        expect(processesMentioning(parent)).to.deep.equal([]);
      });

      it('reports a failed start with the kube-apiserver log and leaves no process or directory behind', async () => {
        const failure = await startControlPlane({ tempDirParent: parent, apiServerArgs: ['--no-such-flag=1'] }).then(
          async (unexpected) => {
            await unexpected.stop();
            return undefined;
          },
          (error: unknown) => error as Error,
        );
        expect(failure?.message).to.match(/kube-apiserver exited before becoming ready/);
        expect(failure?.message).to.match(/no-such-flag/);
        expect(readdirSync(parent)).to.deep.equal([]);
        expect(processesMentioning(parent)).to.deep.equal([]);
      });
    });
  }
}

/** Pids whose command line mentions `text` (our children carry their temp dir in their flags). */
function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}
