/**
 * The website operator against a real kube-apiserver: the scenarios the in-memory server also runs
 * (examples/website-operator/scenarios.ts), here with the CRD's structural schema, CEL rule and pruning enforced,
 * kube-apiserver's server-side apply and managedFields, and a real Lease. The control plane runs no
 * kube-controller-manager: no Deployment controller (the scenarios stand in for it by patching Deployment status,
 * as the demo does) and no garbage collector (the deletion scenario checks the owner references the collector
 * would follow, then deletes the objects itself). The spec installs the CRD.
 */
import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { isInvalid, resourceClient } from '../../src/index.js';
import { installWebsiteCrd } from '../../examples/website-operator/crd.js';
import { websiteOperatorScenarios } from '../../examples/website-operator/scenarios.js';
import { WEBSITE } from '../../examples/website-operator/website.js';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';

if (isE2eRun()) {
  describe('the website-operator example against a real kube-apiserver', function () {
    this.timeout(120000);
    let cluster: E2eCluster;

    before(async () => {
      cluster = await e2eCluster();
    });

    websiteOperatorScenarios({ kubeConfig: () => cluster.handle.kubeConfig, collectsGarbage: false });

    describe('the CRD', () => {
      it('is accepted, served, and refuses what the schema and its CEL rule refuse', async () => {
        const kubeConfig = cluster.handle.kubeConfig;
        await installWebsiteCrd(kubeConfig);
        const websites = resourceClient<KubernetesObject>(kubeConfig, WEBSITE, { namespace: 'default' });
        const refusal = async (name: string, spec: unknown): Promise<string> => {
          const error = await firstValueFrom(websites.create({ apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind, metadata: { name }, spec } as KubernetesObject))
            .then(() => undefined, (e: unknown) => e);
          expect(isInvalid(error), `${name}: ${String(error)}`).to.equal(true);
          return (error as Error).message;
        };
        expect(await refusal('no-content', { image: 'nginx' })).to.contain('spec.content: Required value');
        expect(await refusal('negative', { content: 'x', replicas: -1 })).to.contain('spec.replicas');
        expect(await refusal('1starts-with-a-digit', { content: 'x' })).to.contain('must be a DNS-1035 label');
      });
    });
  });
}
