/**
 * Every examples/<name>/deploy/ folder as kube-apiserver takes it: `kubectl apply --dry-run=server -k <dir>`, the
 * way the guides deploy them, in a namespace that warns about anything the restricted Pod Security profile would
 * refuse. The folders are found, not listed, so a new example is covered as soon as it has one.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { DEPLOY_NAMESPACE, deployFolders, deployObjects } from '../../examples/shared/deploy-support.js';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';
import { ensureDeployNamespace, kubectl } from './support/deployed.js';

if (isE2eRun()) {
  describe("the examples' deploy/ manifests against a real kube-apiserver", function () {
    this.timeout(120_000);
    let cluster: E2eCluster;
    let dir: string;
    let admin: string;

    before(async () => {
      cluster = await e2eCluster();
      dir = mkdtempSync(join(tmpdir(), 'rxkube-deploy-'));
      admin = join(dir, 'admin.kubeconfig');
      await cluster.handle.writeKubeconfig(admin);
      await ensureDeployNamespace(cluster.handle.kubeConfig.makeApiClient(CoreV1Api));
    });

    after(() => rmSync(dir, { recursive: true, force: true }));

    it('finds a deploy/ folder for each of the examples', () => {
      expect(deployFolders().map((folder) => folder.example)).to.include.members([
        'node-labeler',
        'pod-logger',
        'replica-set',
        'website-operator',
      ]);
    });

    for (const folder of deployFolders()) {
      it(`accepts ${folder.example}'s manifests (kubectl apply --dry-run=server -k), restricted-compliant, without a warning`, async () => {
        const result = await kubectl(admin, ['apply', '--dry-run=server', '-k', folder.dir]);
        expect(result.code, result.stderr).to.equal(0);
        expect(result.stderr, 'kubectl warnings (Pod Security, deprecations)').to.equal('');
        // One "… (server dry run)" line per object the kustomization lists.
        const said = result.stdout.trim().split('\n');
        expect(said).to.have.length(deployObjects(folder).length);
        for (const line of said) expect(line).to.match(/ \(server dry run\)$/);
      });
    }

    describe('can fail', () => {
      const deployment = (spec: string): string =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: probe, namespace: ${DEPLOY_NAMESPACE} }\n` +
        `spec:\n  selector: { matchLabels: { a: b } }\n  template:\n    metadata: { labels: { a: b } }\n    spec: ${spec}\n`;
      const dryRun = async (yaml: string) => {
        const file = join(dir, 'probe.yaml');
        writeFileSync(file, yaml);
        return kubectl(admin, ['apply', '--dry-run=server', '-f', file]);
      };

      it('on a manifest kube-apiserver refuses (a Deployment without containers)', async () => {
        const result = await dryRun(deployment('{ containers: [] }'));
        expect(result.code).to.not.equal(0);
        expect(result.stderr).to.contain('spec.template.spec.containers: Required value');
      });

      it('on a Pod template the restricted profile would refuse (kubectl prints the warning)', async () => {
        const result = await dryRun(deployment('{ containers: [{ name: c, image: "registry.example.com/c:1" }] }'));
        expect(result.code, result.stderr).to.equal(0);
        expect(result.stderr).to.contain('would violate PodSecurity "restricted:latest"');
      });
    });
  });
}
