import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { apiServerArgs } from '../../../src/testing/control-plane/apiserver.js';
import type { ApiServerConfig, ApiServerSecrets } from '../../../src/testing/control-plane/apiserver.js';
import { firstServiceIp } from '../../../src/testing/control-plane/control-plane.js';
import { startControlPlane } from '../../../src/testing/control-plane/index.js';

describe('testing/control-plane options', () => {
  describe('firstServiceIp', () => {
    it('returns the first address after the network address', () => {
      expect(firstServiceIp('10.0.0.0/24')).to.equal('10.0.0.1');
      expect(firstServiceIp('10.96.7.9/12')).to.equal('10.96.0.1');
      expect(firstServiceIp('192.168.1.128/25')).to.equal('192.168.1.129');
    });

    it('lies inside the range for any IPv4 CIDR from /8 to /30', () => {
      const toNumber = (ip: string): number => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
      fc.assert(
        fc.property(fc.ipV4(), fc.integer({ min: 8, max: 30 }), (ip, bits) => {
          const first = toNumber(firstServiceIp(`${ip}/${bits}`));
          const size = 2 ** (32 - bits);
          const network = toNumber(ip) - (toNumber(ip) % size);
          expect(first).to.equal(network + 1);
        }),
        { numRuns: 200 },
      );
    });

    it('rejects what is not an IPv4 CIDR', () => {
      for (const bad of ['10.0.0.0', '10.0.0.0/31', '300.0.0.0/24', 'fd00::/64']) {
        expect(() => firstServiceIp(bad), bad).to.throw(TypeError, /serviceClusterIpRange/);
      }
    });
  });

  describe('apiServerArgs', () => {
    const config: ApiServerConfig = {
      binary: '/bin/kube-apiserver',
      workDir: '/w',
      port: 6443,
      etcdUrl: 'http://127.0.0.1:2379',
      secrets: {
        files: {
          caCert: 'ca',
          servingCert: 'crt',
          servingKey: 'key',
          serviceAccountKey: 'sa',
          serviceAccountPublicKey: 'sa.pub',
          tokens: 'tok',
        },
      } as unknown as ApiServerSecrets,
      serviceClusterIpRange: '10.0.0.0/24',
      etcdCompactionInterval: '5m',
      extraArgs: ['--authorization-mode=AlwaysAllow'],
    };
    const args = apiServerArgs(config);

    it('binds loopback only, with RBAC, client certificates, tokens and service-account signing', () => {
      expect(args).to.include.members([
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        '--secure-port=6443',
        '--etcd-servers=http://127.0.0.1:2379',
        '--authorization-mode=RBAC',
        '--client-ca-file=ca',
        '--token-auth-file=tok',
        '--service-account-signing-key-file=sa',
        '--service-account-key-file=sa.pub',
        '--watch-cache=true',
        '--feature-gates=WatchList=true',
      ]);
    });

    it('appends extra flags last so they override the defaults', () => {
      expect(args.at(-1)).to.equal('--authorization-mode=AlwaysAllow');
      expect(args.indexOf('--authorization-mode=RBAC')).to.be.lessThan(args.length - 1);
    });
  });

  describe('startControlPlane input checks', () => {
    let parent: string;
    beforeEach(() => {
      parent = mkdtempSync(join(tmpdir(), 'rxkube-options-spec-'));
    });
    afterEach(() => {
      rmSync(parent, { recursive: true, force: true });
    });

    const failureOf = (promise: Promise<unknown>): Promise<Error | undefined> =>
      promise.then(
        () => undefined,
        (e: unknown) => e as Error,
      );

    it('rejects bad options before starting anything', async () => {
      expect((await failureOf(startControlPlane({ port: 70000, tempDirParent: parent })))?.message).to.match(
        /port must be/,
      );
      expect((await failureOf(startControlPlane({ adminToken: 'a,b', tempDirParent: parent })))?.message).to.match(
        /adminToken/,
      );
      expect((await failureOf(startControlPlane({ startTimeoutMs: -1, tempDirParent: parent })))?.message).to.match(
        /startTimeoutMs/,
      );
      expect(readdirSync(parent)).to.deep.equal([]);
    });

    it('fails with a build hint, and leaves no temp dir, when the binaries are missing', async () => {
      const error = await failureOf(startControlPlane({ assetsDir: join(parent, 'nowhere'), tempDirParent: parent }));
      expect(error?.message).to.match(/control plane binaries not found/);
      expect(readdirSync(parent)).to.deep.equal([]);
    });
  });
});
