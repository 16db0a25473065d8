import http from 'node:http';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { until } from './helpers.js';

interface Line {
  type: string;
  object: { metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string> } };
}

/** A watch whose response is paused until `resume()`, so the server's initial state backs up behind the socket. */
function pausedWatch(cluster: TestCluster, path: string): Promise<{ lines: Line[]; resume(): void; stop(): void }> {
  return new Promise((resolve, reject) => {
    const lines: Line[] = [];
    let tail = '';
    const req = http.get(`${cluster.url}${path}`, { agent: false }, (res) => {
      res.pause();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const parts = (tail + chunk).split('\n');
        tail = parts.pop()!;
        for (const part of parts) lines.push(JSON.parse(part) as Line);
      });
      res.on('error', () => undefined);
      resolve({ lines, resume: () => res.resume(), stop: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'initial' },
  data: { payload: 'x'.repeat(1024) },
});

describe('in-memory API server: initial watch state', () => {
  let cluster: TestCluster;
  const count = 6000;

  before(async () => {
    cluster = await startTestCluster({ namespaces: ['initial'] });
    cluster.seed(Array.from({ length: count }, (_, i) => configMap(`cm-${String(i).padStart(5, '0')}`)));
  });
  after(() => cluster.stop());

  it('streams the initial state paced by the socket and holds live events until it is done', async () => {
    const snapshotRv = cluster.resourceVersion();
    const watch = await pausedWatch(
      cluster,
      '/api/v1/namespaces/initial/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    try {
      // Commits while the paused client has not read the initial state: they must come after it.
      cluster.seed([configMap('live-added')]);
      const changed = { ...configMap('cm-00000'), data: { payload: 'changed' } };
      cluster.update([changed]);
      expect(cluster.openWatches()).to.equal(1);
      watch.resume();
      await until(
        () => watch.lines.length >= count + 3,
        'the initial state, its end bookmark and two live events',
        15_000,
      );
      const initial = watch.lines.slice(0, count);
      expect(initial.every((l) => l.type === 'ADDED')).to.equal(true);
      expect(new Set(initial.map((l) => l.object.metadata.name)).size).to.equal(count);
      const end = watch.lines[count]!;
      expect(end.type).to.equal('BOOKMARK');
      expect(end.object.metadata.annotations).to.deep.equal({ 'k8s.io/initial-events-end': 'true' });
      expect(end.object.metadata.resourceVersion).to.equal(snapshotRv);
      expect(watch.lines.slice(count + 1).map((l) => `${l.type} ${l.object.metadata.name}`)).to.deep.equal([
        'ADDED live-added',
        'MODIFIED cm-00000',
      ]);
      expect(Number(watch.lines[count + 2]!.object.metadata.resourceVersion)).to.be.greaterThan(Number(snapshotRv));
    } finally {
      watch.stop();
    }
  });

  it('sends every initial object once per watcher when many watch at once', async () => {
    const watches = await Promise.all(
      Array.from({ length: 4 }, () => pausedWatch(cluster, '/api/v1/namespaces/initial/configmaps?watch=1')),
    );
    try {
      for (const w of watches) w.resume();
      const total = count + 1;
      await until(
        () => watches.every((w) => w.lines.length >= total),
        'every watcher to get the initial state',
        15_000,
      );
      for (const w of watches) {
        expect(w.lines.length).to.equal(total);
        expect(new Set(w.lines.map((l) => l.object.metadata.name)).size).to.equal(total);
      }
    } finally {
      for (const w of watches) w.stop();
    }
  });
});
