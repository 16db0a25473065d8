/**
 * The examples' `deploy/` folders, checked without a cluster: what each Deployment promises (two replicas, probes,
 * metrics, a grace period above the drain, resources, a restricted security context, the in-cluster config), that
 * its RBAC is bound to its ServiceAccount and covers its Lease, and that its container command starts the example
 * from the image's files (`npm run build:examples`, laid out as examples/Dockerfile lays them out). Kube-apiserver's
 * own verdict on the manifests, and the RBAC at work, are spec/e2e/deploy.spec.ts.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  KubernetesObject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Role,
  V1RoleBinding,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { WEBSITE_OPERATOR_RULES } from '../website-operator/rbac.js';
import { IN_CLUSTER_ENV } from './cli.js';
import {
  buildImageFiles,
  containerStart,
  DEPLOY_NAMESPACE,
  deployedContainer,
  deployFolders,
  deployObjects,
  EXAMPLE_PACKAGES,
  EXAMPLES_DIR,
  packagesImportedBy,
} from './deploy-support.js';
import { spawnNode } from './spec-support.js';

const repoRoot = resolve(EXAMPLES_DIR, '..');
/** The manager's drain when --shutdown-timeout is not given (DESIGN §4). */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/** The last value of `--<name>=<value>` or `--<name> <value>` in `args`. */
function flag(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  args.forEach((arg, at) => {
    if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else if (arg === `--${name}`) value = args[at + 1];
  });
  return value;
}

describe("the examples' deploy/ folders", () => {
  const folders = deployFolders();

  it('exist for every example that runs (an examples/<name>/main.ts)', () => {
    const runnable = readdirSync(EXAMPLES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(EXAMPLES_DIR, entry.name, 'main.ts')))
      .map((entry) => entry.name)
      .sort();
    expect(folders.map((folder) => folder.example)).to.deep.equal(runnable);
  });

  for (const folder of folders) {
    describe(folder.example, () => {
      const objects = (): KubernetesObject[] => deployObjects(folder);
      const start = () =>
        containerStart(deployedContainer(folder).container, { 'metadata.namespace': DEPLOY_NAMESPACE });

      it(`puts every namespaced object in ${DEPLOY_NAMESPACE} or names its namespace, and has one ServiceAccount the Deployment runs as`, () => {
        const clusterScoped = new Set(['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'Namespace']);
        for (const object of objects()) {
          if (!clusterScoped.has(object.kind!))
            expect(object.metadata?.namespace, `${object.kind}/${object.metadata?.name}`).to.be.a('string');
        }
        const accounts = objects().filter((object) => object.kind === 'ServiceAccount');
        expect(accounts.map((account) => account.metadata?.namespace)).to.deep.equal([DEPLOY_NAMESPACE]);
        const { deployment } = deployedContainer(folder);
        expect(deployment.metadata?.namespace).to.equal(DEPLOY_NAMESPACE);
        expect(deployment.spec?.template.spec?.serviceAccountName).to.equal(accounts[0]!.metadata?.name);
      });

      it("runs two replicas with leader election on (three sharded ones with --shard-ranges), the Leases in the Pod's namespace, in-cluster", () => {
        const { deployment, container } = deployedContainer(folder);
        const sharded = flag(start().args, 'shard-ranges') !== undefined;
        expect(deployment.spec?.replicas).to.equal(sharded ? 3 : 2);
        expect(start().args).to.not.include('--no-leader-elect');
        expect(flag(start().args, 'leader-elect-resource-namespace')).to.equal(DEPLOY_NAMESPACE);
        expect(
          container.env?.find((variable) => variable.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath,
        ).to.equal('metadata.namespace');
        expect(start().env[IN_CLUSTER_ENV]).to.equal('true');
      });

      it('serves metrics and probes on every interface, on the ports it declares, and probes /healthz and /readyz', () => {
        const { container } = deployedContainer(folder);
        const port = (name: string) => container.ports?.find((declared) => declared.name === name)?.containerPort;
        expect(flag(start().args, 'metrics-bind-address')).to.equal(`:${port('metrics')}`);
        expect(flag(start().args, 'health-probe-bind-address')).to.equal(`:${port('health')}`);
        expect(container.livenessProbe?.httpGet).to.deep.include({ path: '/healthz', port: 'health' });
        expect(container.readinessProbe?.httpGet).to.deep.include({ path: '/readyz', port: 'health' });
      });

      it('gives a stopping Pod more time than the drain takes', () => {
        const { deployment } = deployedContainer(folder);
        const drainMs = Number(flag(start().args, 'shutdown-timeout') ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
        expect((deployment.spec?.template.spec?.terminationGracePeriodSeconds ?? 0) * 1000).to.be.greaterThan(drainMs);
      });

      it('asks for resources and runs as the restricted Pod Security profile wants (non-root, read-only root, no privileges)', () => {
        const { deployment, container } = deployedContainer(folder);
        for (const kind of ['requests', 'limits'] as const)
          expect(container.resources?.[kind]).to.have.keys('cpu', 'memory');
        expect(deployment.spec?.template.spec?.securityContext).to.deep.include({
          runAsNonRoot: true,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(container.securityContext).to.deep.include({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      });

      it('names the image its kustomization sets', () => {
        const { container } = deployedContainer(folder);
        const kustomization = parse(readFileSync(join(folder.dir, 'kustomization.yaml'), 'utf8')) as {
          images?: Array<{ name: string; newTag?: string }>;
        };
        const [name, tag] = container.image!.split(':');
        expect(kustomization.images).to.deep.include({ name, newTag: tag });
      });

      it('binds every Role and ClusterRole it defines to its ServiceAccount, and lets it keep its Leases', () => {
        const account = objects().find((object) => object.kind === 'ServiceAccount')!.metadata!;
        const roles = objects().filter((object) => object.kind === 'Role' || object.kind === 'ClusterRole') as V1Role[];
        const bindings = objects().filter(
          (object) => object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding',
        ) as Array<V1RoleBinding | V1ClusterRoleBinding>;
        for (const binding of bindings) {
          expect(binding.subjects).to.deep.equal([
            { kind: 'ServiceAccount', name: account.name, namespace: account.namespace },
          ]);
          const role = roles.find(
            (candidate) => candidate.kind === binding.roleRef.kind && candidate.metadata?.name === binding.roleRef.name,
          );
          expect(
            role,
            `${binding.kind}/${binding.metadata?.name} → ${binding.roleRef.kind}/${binding.roleRef.name}`,
          ).to.not.equal(undefined);
          if (binding.kind === 'RoleBinding')
            expect(role!.metadata?.namespace ?? binding.metadata?.namespace).to.equal(binding.metadata?.namespace);
        }
        expect(
          roles.filter((role) => !bindings.some((binding) => binding.roleRef.name === role.metadata?.name)),
          'unbound roles',
        ).to.deep.equal([]);
        const leaseRules = roles
          .filter((role) => role.kind === 'Role' && role.metadata?.namespace === DEPLOY_NAMESPACE)
          .flatMap((role) => role.rules ?? [])
          .filter((rule) => rule.apiGroups?.includes('coordination.k8s.io') && rule.resources?.includes('leases'));
        if (flag(start().args, 'shard-ranges') !== undefined) {
          // Sharded: the range and member Leases are listed, and named at run time.
          expect(leaseRules).to.deep.equal([
            { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'create', 'update'] },
          ]);
          return;
        }
        // The manager's name, hence its Lease's, is the example's.
        expect(leaseRules).to.deep.include({
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: [folder.example],
          verbs: ['get', 'update'],
        });
        expect(leaseRules).to.deep.include({
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['create'],
        });
      });
    });
  }

  it('grants the website operator exactly the rules its rbac.ts lists (the ones its own e2e spec runs it with)', () => {
    const deployed = deployObjects(folders.find((folder) => folder.example === 'website-operator')!).find(
      (object) => object.kind === 'ClusterRole',
    ) as V1ClusterRole;
    expect(deployed.rules).to.deep.equal(WEBSITE_OPERATOR_RULES);
  });

  describe("the image's files (npm run build:examples, laid out as examples/Dockerfile does)", function () {
    this.timeout(120_000);
    let app: string;

    before(() => {
      app = buildImageFiles();
    });

    after(() => rmSync(app, { recursive: true, force: true }));

    it("imports no package but Node's own, the runtime dependencies and the examples' own (the image installs no other)", async () => {
      const { dependencies } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      const packages = await packagesImportedBy(app, ['src', 'examples']);
      expect(packages.filter((name) => !(name in dependencies) && !EXAMPLE_PACKAGES.includes(name))).to.deep.equal([]);
      expect(packages).to.include.members(['rxjs', '@kubernetes/client-node', 'immer']);
    });

    it("installs each of the examples' own packages into the image, at the lockfile's version", () => {
      const dockerfile = readFileSync(join(EXAMPLES_DIR, 'Dockerfile'), 'utf8');
      for (const name of EXAMPLE_PACKAGES) {
        expect(dockerfile).to.contain(
          `"${name}@$(node -p "require('./package-lock.json').packages['node_modules/${name}'].version")"`,
        );
        expect(dockerfile).to.contain(`cp -R /tmp/example-packages/node_modules/${name} node_modules/`);
      }
    });

    for (const folder of folders) {
      it(`starts ${folder.example} with its Deployment's command, args and env: the modules load, the flags parse, and it asks for the in-cluster config`, async () => {
        const { nodeOptions, script, args, env } = containerStart(deployedContainer(folder).container, {
          'metadata.namespace': DEPLOY_NAMESPACE,
        });
        expect(existsSync(join(app, script)), `${script} in the image`).to.equal(true);
        // Outside a Pod the in-cluster config is missing: the last check before anything starts.
        const run = spawnNode([...nodeOptions, script, ...args], {
          env: { ...env, KUBERNETES_SERVICE_HOST: undefined, KUBERNETES_SERVICE_PORT: undefined },
          cwd: app,
        });
        expect(await run.exited, run.output()).to.deep.equal([2, null]);
        expect(run.stderr()).to.equal(
          `${folder.example}: not in a Pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set\n`,
        );
      });
    }
  });
});
