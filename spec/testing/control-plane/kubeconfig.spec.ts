import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { existingCluster } from '../../../src/testing/control-plane/index.js';
import { buildKubeConfig, writeKubeConfigFile } from '../../../src/testing/kubeconfig.js';
import { createCertificateAuthority, issueCertificate } from '../../../src/testing/pki/index.js';

describe('testing/control-plane kubeconfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-kubeconfig-spec-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const ca = createCertificateAuthority();
  const client = issueCertificate(ca, { commonName: 'admin', organizations: ['system:masters'], usage: 'client' });

  it('round-trips a client-certificate kubeconfig through a 0600 file that existingCluster loads', async () => {
    const kubeConfig = buildKubeConfig({
      name: 'cp',
      url: 'https://127.0.0.1:6443',
      caPem: ca.certPem,
      user: 'admin',
      client,
    });
    const path = join(dir, 'kubeconfig');
    await writeKubeConfigFile(kubeConfig, path);
    expect(statSync(path).mode & 0o777).to.equal(0o600);

    const cluster = existingCluster(path);
    expect(cluster.url).to.equal('https://127.0.0.1:6443');
    const user = cluster.kubeConfig.getCurrentUser();
    expect(Buffer.from(user!.certData!, 'base64').toString()).to.equal(client.certPem);
    expect(Buffer.from(cluster.kubeConfig.getCurrentCluster()!.caData!, 'base64').toString()).to.equal(ca.certPem);
    await cluster.stop();
    await cluster.stop();
  });

  it('falls back to a bearer token when no client certificate is given', () => {
    const kubeConfig = buildKubeConfig({
      name: 'cp',
      url: 'https://127.0.0.1:6443',
      caPem: ca.certPem,
      user: 'admin',
      token: 's3cret',
    });
    expect(kubeConfig.getCurrentUser()?.token).to.equal('s3cret');
  });

  it('names the file when the kubeconfig is missing or has no current cluster', () => {
    expect(() => existingCluster(join(dir, 'missing'))).to.throw(/cannot load kubeconfig .*missing/);
    const empty = join(dir, 'empty');
    writeFileSync(empty, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] }));
    expect(() => existingCluster(empty)).to.throw(/has no cluster/);
  });
});
