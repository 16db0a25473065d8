import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IN_CLUSTER_ENV, inClusterKubeConfig, inClusterRequested, SERVICE_ACCOUNT_DIR } from './cli.js';
import { spawnNode } from './spec-support.js';

describe("the examples' in-cluster config", () => {
  describe(`${IN_CLUSTER_ENV} (opt-in, never detected)`, () => {
    for (const value of ['true', 'TRUE', '1', ' true ']) {
      it(`asks for it when set to ${JSON.stringify(value)}`, () =>
        expect(inClusterRequested({ [IN_CLUSTER_ENV]: value })).to.equal(true));
    }
    for (const value of [undefined, '', 'false', '0']) {
      it(`does not when ${value === undefined ? 'unset' : `set to ${JSON.stringify(value)}`}, even in a Pod`, () => {
        expect(
          inClusterRequested({
            [IN_CLUSTER_ENV]: value,
            KUBERNETES_SERVICE_HOST: '10.0.0.1',
            KUBERNETES_SERVICE_PORT: '443',
          }),
        ).to.equal(false);
      });
    }
    it('refuses any other value, naming the variable and the value', () => {
      expect(() => inClusterRequested({ [IN_CLUSTER_ENV]: 'yes' })).to.throw(
        TypeError,
        `${IN_CLUSTER_ENV} must be true, 1, false, 0 or empty, got "yes"`,
      );
    });
  });

  describe("inClusterKubeConfig (client-node's loadFromCluster, checked first)", () => {
    let root: string;
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    const restore = (name: string, value: string | undefined): void => {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    };
    const serviceAccount = (files: Record<string, string>): void => {
      const dir = join(root, SERVICE_ACCOUNT_DIR);
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    };

    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'rxkube-in-cluster-'));
      process.env.KUBERNETES_SERVICE_HOST = '10.96.0.1';
      process.env.KUBERNETES_SERVICE_PORT = '443';
    });

    afterEach(() => {
      restore('KUBERNETES_SERVICE_HOST', saved.host);
      restore('KUBERNETES_SERVICE_PORT', saved.port);
      rmSync(root, { recursive: true, force: true });
    });

    it("reaches the API server of the Service, trusts the ServiceAccount's CA and reads its token file (rotated tokens are re-read)", () => {
      serviceAccount({ token: 'eyJ.token', 'ca.crt': '-----BEGIN CERTIFICATE-----\n', namespace: 'rxkube-examples\n' });
      const { kubeConfig, namespace } = inClusterKubeConfig(root);
      expect(kubeConfig.getCurrentCluster()).to.deep.include({
        server: 'https://10.96.0.1:443',
        caFile: join(root, SERVICE_ACCOUNT_DIR, 'ca.crt'),
      });
      expect(kubeConfig.getCurrentUser()?.authProvider).to.deep.equal({
        name: 'tokenFile',
        config: { tokenFile: join(root, SERVICE_ACCOUNT_DIR, 'token') },
      });
      expect(namespace).to.equal('rxkube-examples');
    });

    it('brackets an IPv6 service address', () => {
      process.env.KUBERNETES_SERVICE_HOST = 'fd00::1';
      serviceAccount({ token: 't', 'ca.crt': 'c' });
      expect(inClusterKubeConfig(root).kubeConfig.getCurrentCluster()?.server).to.equal('https://[fd00::1]:443');
    });

    it('says which environment variables are missing outside a Pod', () => {
      delete process.env.KUBERNETES_SERVICE_HOST;
      delete process.env.KUBERNETES_SERVICE_PORT;
      serviceAccount({ token: 't', 'ca.crt': 'c' });
      expect(() => inClusterKubeConfig(root)).to.throw(
        'not in a Pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set',
      );
    });

    it('names the missing ServiceAccount file when the token is not mounted', () => {
      serviceAccount({ 'ca.crt': 'c' });
      expect(() => inClusterKubeConfig(root)).to.throw(
        `no ServiceAccount credentials: ${join(root, SERVICE_ACCOUNT_DIR, 'token')} missing (automountServiceAccountToken off?)`,
      );
    });
  });

  describe('an example asked to run in-cluster', function () {
    this.timeout(30000);

    it('exits 2 saying why when it is not in a Pod, instead of starting the embedded cluster', async () => {
      const example = spawnNode(['--import', 'tsx', 'examples/pod-logger/main.ts'], {
        env: { [IN_CLUSTER_ENV]: 'true', KUBERNETES_SERVICE_HOST: undefined, KUBERNETES_SERVICE_PORT: undefined },
      });
      expect(await example.exited).to.deep.equal([2, null]);
      expect(example.stderr()).to.equal(
        'pod-logger: not in a Pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set\n',
      );
      expect(example.stdout()).to.equal('');
    });

    it('exits 2 on a value it does not know', async () => {
      const example = spawnNode(['--import', 'tsx', 'examples/node-labeler/main.ts'], {
        env: { [IN_CLUSTER_ENV]: 'yes' },
      });
      expect(await example.exited).to.deep.equal([2, null]);
      expect(example.stderr()).to.equal(
        `node-labeler: ${IN_CLUSTER_ENV} must be true, 1, false, 0 or empty, got "yes"\n`,
      );
    });
  });
});
