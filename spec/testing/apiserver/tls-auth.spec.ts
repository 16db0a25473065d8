import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { clientWatch, failure, until } from './helpers.js';

function httpsGet(url: string, ca: string, token: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
}

describe('in-memory API server: TLS and bearer token', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ tls: true, token: 'sekret' });
  });
  after(() => cluster.stop());

  it('serves HTTPS on 127.0.0.1 with a CA that the kubeConfig carries', () => {
    expect(cluster.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = cluster.kubeConfig.getCurrentCluster();
    expect(kc?.caData).to.be.a('string');
    expect(kc?.skipTLSVerify).to.equal(false);
    expect(cluster.caCertPem).to.match(/BEGIN CERTIFICATE/);
  });

  it('lets client-node read, write and watch through its TLS and token paths', async () => {
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const watch = await clientWatch(cluster.kubeConfig, '/api/v1/namespaces/default/configmaps', {
      resourceVersion: cluster.resourceVersion(),
    });
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'secure' } } });
    await until(() => watch.events.length === 1, 'the watch event');
    watch.stop();
    expect(watch.events[0]?.type).to.equal('ADDED');
  });

  it('answers 401 Unauthorized without the right token', async () => {
    const wrong = new KubeConfig();
    const c = cluster.kubeConfig.getCurrentCluster()!;
    wrong.loadFromOptions({
      clusters: [{ name: 'c', server: c.server, caData: c.caData, skipTLSVerify: false }],
      users: [{ name: 'u', token: 'wrong' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const { code } = await failure(wrong.makeApiClient(CoreV1Api).listNamespace());
    expect(code).to.equal(401);
    // client-node drops 401 bodies, so read the Status itself.
    const { status, body } = await httpsGet(`${cluster.url}/api/v1/namespaces`, cluster.caCertPem!, 'wrong');
    expect(status).to.equal(401);
    expect(body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  it('is not trusted by a client without the CA', async () => {
    const untrusting = new KubeConfig();
    untrusting.loadFromOptions({
      clusters: [{ name: 'c', server: cluster.url, skipTLSVerify: false }],
      users: [{ name: 'u', token: 'sekret' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    let error: unknown;
    try {
      await untrusting.makeApiClient(CoreV1Api).listNamespace();
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(Error);
  });

  it('writes a kubeconfig that client-node loads back with the same server, CA and token', async () => {
    const path = join(tmpdir(), `rxkube-kc-${process.pid}-${Date.now()}.yaml`);
    try {
      await cluster.writeKubeconfig(path);
      const text = await readFile(path, 'utf8');
      expect(text).to.include('current-context: rxkube');
      const loaded = new KubeConfig();
      loaded.loadFromString(text);
      expect(loaded.getCurrentCluster()?.server).to.equal(cluster.url);
      expect(loaded.getCurrentUser()?.token).to.equal('sekret');
      const namespaces = await loaded.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.length).to.be.greaterThan(3);
    } finally {
      await rm(path, { force: true });
    }
  });
});
