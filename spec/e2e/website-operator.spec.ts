/**
 * The website operator against a real kube-apiserver: the scenarios the in-memory server also runs
 * (examples/website-operator/scenarios.ts), here with the CRD's structural schema, CEL rule and pruning enforced,
 * kube-apiserver's server-side apply and managedFields, and a real Lease. The control plane runs no
 * kube-controller-manager: no Deployment controller (the scenarios stand in for it by patching Deployment status,
 * as the demo does) and no garbage collector (the deletion scenario checks the owner references the collector
 * would follow, then deletes the objects itself). The spec installs the CRD. Last, the operator runs as a
 * ServiceAccount (impersonated) with only the rights `rbac.ts` lists, so the guide's RBAC table is proven, not
 * assumed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { KubeConfig, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { firstValueFrom, type Subscription } from 'rxjs';
import { apiErrors, jsonLogger, manager, resourceClient } from '../../src/index.js';
import { waitFor, waitForAsync } from '../support/wait.js';
import { websiteController } from '../../examples/website-operator/controller.js';
import { installWebsiteCrd } from '../../examples/website-operator/crd.js';
import { LEADER_ELECTION_RULES, WEBSITE_OPERATOR_RULES } from '../../examples/website-operator/rbac.js';
import { REPORTING_CONTROLLER, websiteOperatorScenarios } from '../../examples/website-operator/scenarios.js';
import { CONFIG_MAP, ownedNames, WEBSITE, type Website } from '../../examples/website-operator/website.js';
import { markRolledOut } from '../../examples/website-operator/workload.js';
import { e2eCluster, isE2eRun, type E2eCluster } from './support/cluster.js';

/** `admin`'s cluster and credentials, acting as `user` (the admin may impersonate anyone). */
function impersonating(admin: KubeConfig, user: string): KubeConfig {
  const cluster = admin.getCurrentCluster()!;
  const credentials = admin.getCurrentUser()!;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ ...credentials, impersonateUser: user }],
    contexts: [{ name: 'impersonated', cluster: cluster.name, user: credentials.name }],
    currentContext: 'impersonated',
  });
  return kubeConfig;
}

if (isE2eRun()) {
  describe('the website-operator example against a real kube-apiserver', function () {
    this.timeout(120000);
    let cluster: E2eCluster;

    before(async () => {
      cluster = await e2eCluster();
    });

    websiteOperatorScenarios({ kubeConfig: () => cluster.handle.kubeConfig, collectsGarbage: false });

    describe('as a ServiceAccount with only the rights rbac.ts lists (a Role in its namespace)', () => {
      const namespace = `websites-rbac-${Math.random().toString(36).slice(2, 8)}`;
      const records: Array<{ readonly level: string; readonly msg: string }> = [];
      const lines: string[] = [];
      let recordsDirectory = '';
      let operator: Subscription | undefined;
      const admin = () => cluster.handle.kubeConfig;
      const ofKind = (apiVersion: string, kind: string) =>
        resourceClient<KubernetesObject>(admin(), { apiVersion, kind }, { namespace });

      before(async function () {
        this.timeout(60_000);
        await installWebsiteCrd(admin());
        await firstValueFrom(
          resourceClient(admin(), { apiVersion: 'v1', kind: 'Namespace' }).create({ metadata: { name: namespace } }),
        );
        await firstValueFrom(
          ofKind('v1', 'ServiceAccount').create({ metadata: { name: 'website-operator', namespace } }),
        );
        await firstValueFrom(
          ofKind('rbac.authorization.k8s.io/v1', 'Role').create({
            metadata: { name: 'website-operator', namespace },
            rules: [...WEBSITE_OPERATOR_RULES, ...LEADER_ELECTION_RULES],
          } as KubernetesObject),
        );
        await firstValueFrom(
          ofKind('rbac.authorization.k8s.io/v1', 'RoleBinding').create({
            metadata: { name: 'website-operator', namespace },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'website-operator' },
            subjects: [{ kind: 'ServiceAccount', name: 'website-operator', namespace }],
          } as KubernetesObject),
        );
        recordsDirectory = mkdtempSync(join(tmpdir(), 'website-records-'));
        let leading = false;
        operator = manager({
          connection: impersonating(admin(), `system:serviceaccount:${namespace}:website-operator`),
          name: 'website-operator',
          controllers: [websiteController({ namespace, recordsDirectory, print: (line) => lines.push(line) })],
          leaderElection: { namespace },
          metrics: false,
          health: false,
          signals: false,
          logger: jsonLogger({
            level: 'warn',
            write: (line) => records.push(JSON.parse(line) as { level: string; msg: string }),
          }),
          events: { reportingController: REPORTING_CONTROLLER },
        }).subscribe((event) => {
          if (event.type === 'leading') leading = event.leading;
        });
        await waitFor(
          () => leading,
          () => `the operator to lead; log:\n${records.map((r) => JSON.stringify(r)).join('\n')}`,
          30_000,
        );
      });

      after(async () => {
        operator?.unsubscribe();
        await firstValueFrom(resourceClient(admin(), { apiVersion: 'v1', kind: 'Namespace' }).delete(namespace)).catch(
          () => undefined,
        );
        rmSync(recordsDirectory, { recursive: true, force: true });
      });

      it('reconciles a Website through Ready, records its Events, and cleans up on deletion, with no call refused', async () => {
        const websites = resourceClient<Website>(admin(), WEBSITE, { namespace });
        await firstValueFrom(
          resourceClient<V1ConfigMap>(admin(), CONFIG_MAP, { namespace }).create({
            metadata: { name: 'website-defaults', namespace },
            data: { replicas: '2' },
          }),
        );
        await firstValueFrom(
          websites.create({
            apiVersion: WEBSITE.apiVersion,
            kind: WEBSITE.kind,
            metadata: { name: 'least', namespace },
            spec: { content: 'least' },
          }),
        );
        const status = async (test: (website: Website) => boolean, what: string): Promise<void> => {
          let last: Website | undefined;
          await waitForAsync(
            async () => test((last = await firstValueFrom(websites.get('least')))),
            () =>
              `${what}; status: ${JSON.stringify(last?.status)}; lines:\n${lines.join('\n')}\nlog:\n${records.map((r) => JSON.stringify(r)).join('\n')}`,
            30_000,
            100,
          );
        };
        await status((w) => w.status?.observedGeneration === 1 && w.status.replicas === 2, 'least to be applied');
        await markRolledOut(admin(), namespace, ownedNames('least').deployment);
        await status(
          (w) => w.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
          'least to be Ready',
        );
        expect(existsSync(join(recordsDirectory, `${namespace}_least.json`))).to.equal(true);
        let reasons: string[] = [];
        await waitForAsync(
          async () => {
            reasons = (await firstValueFrom(ofKind('events.k8s.io/v1', 'Event').list())).items.map(
              (event) => (event as KubernetesObject & { reason: string }).reason,
            );
            return reasons.includes('Ready');
          },
          () => `the Ready Event; Events: ${reasons.join(', ')}`,
          30_000,
          100,
        );
        expect(reasons).to.include.members(['Created', 'RecordWritten', 'RollingOut', 'Ready']);

        await firstValueFrom(websites.delete('least'));
        await waitForAsync(
          () =>
            firstValueFrom(websites.get('least')).then(
              () => false,
              (error: unknown) => apiErrors.isNotFound(error),
            ),
          'least to go',
          30_000,
          100,
        );
        expect(existsSync(join(recordsDirectory, `${namespace}_least.json`))).to.equal(false);
        expect(lines.filter((line) => / not written: | dropped | refused/.test(line))).to.deep.equal([]);
        expect(records.filter((record) => /reconcile failed|event/i.test(record.msg))).to.deep.equal([]);
      });
    });

    describe('the CRD', () => {
      it('is accepted, served, and refuses what the schema and its CEL rule refuse', async () => {
        const kubeConfig = cluster.handle.kubeConfig;
        await installWebsiteCrd(kubeConfig);
        const websites = resourceClient<KubernetesObject>(kubeConfig, WEBSITE, { namespace: 'default' });
        const refusal = async (name: string, spec: unknown): Promise<string> => {
          const error = await firstValueFrom(
            websites.create({
              apiVersion: WEBSITE.apiVersion,
              kind: WEBSITE.kind,
              metadata: { name },
              spec,
            } as KubernetesObject),
          ).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(apiErrors.isInvalid(error), `${name}: ${String(error)}`).to.equal(true);
          return (error as Error).message;
        };
        expect(await refusal('no-content', { image: 'nginx' })).to.contain('spec.content: Required value');
        expect(await refusal('negative', { content: 'x', replicas: -1 })).to.contain('spec.replicas');
        expect(await refusal('1starts-with-a-digit', { content: 'x' })).to.contain('must be a DNS-1035 label');
      });
    });
  });
}
